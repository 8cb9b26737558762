
-- try_admit: one atomic look at a site (Sites::try_admit). Drops holds whose
-- lease lapsed, then SiteState::try_admit at the server's time, rounded down.
-- ARGV: prefix, clock, site, call, interval_ms, hold_ms, budget calls ('' for
-- none), budget window_ms, lease ('' for none), lost interval_ms, lost
-- hold_ms (what a state that cannot be read is rebuilt with).
-- Reply: {decision, now_ms, until_ms, now_us, lease-bound holds?, holds} or
-- {CORRUPT, aside}.
local site, call = ARGV[3], ARGV[4]
local p = { interval = tonumber(ARGV[5]), hold = tonumber(ARGV[6]) }
if ARGV[7] ~= '' then
  p.calls = tonumber(ARGV[7])
  p.window = tonumber(ARGV[8])
end
local lease = nil
if ARGV[9] ~= '' then lease = ARGV[9] end
local us = now_us()
local now = floor_ms(us)
local s, raw = load(site, now)
if not s then return heal(site, raw, us, tonumber(ARGV[10]), tonumber(ARGV[11])) end
local dropped = drop_lapsed(s)
local decision, at = try_admit(s, call, now, p, lease)
save(site, s, raw, now)
if dropped then wake() end
local bound = false
for _, f in ipairs(s.in_flight) do
  if f.lease then bound = true end
end
return { decision, now, at, us, flag(bound), #s.in_flight }
