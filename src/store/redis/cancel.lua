
-- cancel: SiteState::cancel. A site never written has nothing to cancel.
-- ARGV: prefix, clock, site, call, lost interval_ms, lost hold_ms.
-- Reply: {OK, found?}; a state that cannot be read is healed first.
local site, call = ARGV[3], ARGV[4]
local us = now_us()
local s, raw = load_healed(site, us, tonumber(ARGV[5]), tonumber(ARGV[6]))
if raw == false then return { OK, 0 } end
local dropped = drop_lapsed(s)
local found = without(s, call)
save(site, s, raw, floor_ms(us))
if found or dropped then wake() end
return { OK, flag(found) }
