
-- finish: SiteState::finish at the server's time, rounded up.
-- ARGV: prefix, clock, site, call, interval_ms, lost interval_ms, lost hold_ms.
-- Reply: {OK, finish_ms, listed?}; a state that cannot be read is healed first.
local site, call = ARGV[3], ARGV[4]
local us = now_us()
local s, raw = load_healed(site, us, tonumber(ARGV[6]), tonumber(ARGV[7]))
drop_lapsed(s)
local now = ceil_ms(us)
local found = finish(s, call, now, tonumber(ARGV[5]))
save(site, s, raw, now)
wake()
return { OK, now, flag(found) }
