
-- check: heal a state that cannot be read, and nothing else; run before the
-- client-side transaction of update_backoff, which needs a readable state.
-- ARGV: prefix, clock, site, '' (no call), lost interval_ms, lost hold_ms.
-- Reply: {OK, now_ms rounded up} or {CORRUPT, aside}.
local site = ARGV[3]
local us = now_us()
local s, raw = load(site, floor_ms(us))
if not s then return heal(site, raw, us, tonumber(ARGV[5]), tonumber(ARGV[6])) end
return { OK, ceil_ms(us) }
