
-- extend: SiteState::extend from the server's time, rounded up.
-- ARGV: prefix, clock, site, call, hold_ms, lost interval_ms, lost hold_ms.
-- Reply: {OK, found?}; a state that cannot be read is healed first.
local site, call = ARGV[3], ARGV[4]
local us = now_us()
local s, raw = load_healed(site, us, tonumber(ARGV[6]), tonumber(ARGV[7]))
if raw == false then return { OK, 0 } end
local dropped = drop_lapsed(s)
local found = extend(s, call, ceil_ms(us), tonumber(ARGV[5]))
save(site, s, raw, floor_ms(us))
if dropped then wake() end
return { OK, flag(found) }
