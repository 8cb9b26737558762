
-- confirm: SiteState::confirm, after dropping holds whose lease lapsed, so a
-- hold that lapsed while its process was stopped is reported as gone.
-- ARGV: prefix, clock, site, call, started_ms, hold_ms, lost interval_ms,
-- lost hold_ms.
-- Reply: {OK, found?}; a state that cannot be read is healed first.
local site, call = ARGV[3], ARGV[4]
local us = now_us()
local s, raw = load_healed(site, us, tonumber(ARGV[7]), tonumber(ARGV[8]))
if raw == false then return { OK, 0 } end
drop_lapsed(s)
local found = confirm(s, call, tonumber(ARGV[5]), tonumber(ARGV[6]))
-- A hold cut back, or dropped: the site may be due sooner.
if save(site, s, raw, floor_ms(us)) then wake() end
return { OK, flag(found) }
