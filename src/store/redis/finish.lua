
-- finish: SiteState::finish at the server's time, rounded up.
-- ARGV: prefix, clock, site, call, interval_ms, lost interval_ms, lost hold_ms.
-- Reply: {OK, finish_ms, listed?} or {CORRUPT, aside}.
local site, call = ARGV[3], ARGV[4]
local us = now_us()
local s, raw = load(site, floor_ms(us))
if not s then return heal(site, raw, us, tonumber(ARGV[6]), tonumber(ARGV[7])) end
drop_lapsed(s)
local now = ceil_ms(us)
local found = finish(s, call, now, tonumber(ARGV[5]))
save(site, s, raw, now)
wake()
return { OK, now, flag(found) }
