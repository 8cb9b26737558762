
-- try_admit: one atomic look at a site (Sites::try_admit). Drops holds whose
-- lease lapsed, then SiteState::try_admit at the server's time, rounded down.
-- With the arguments after the eleventh, it is a call's whole admission at
-- its one site (Store::admit_call): nothing is done while the agent's open
-- call is another one, or while others queue for the site; on GO the call's
-- record is saved; and the marker and the tab map are read along.
-- KEYS: the site's state, known sites, wake-up list; then (admit_call) the
-- record's key (the agent's slot, or the call's own) and the site's queue.
-- ARGV: prefix, clock, site, call, interval_ms, hold_ms, budget calls ('' for
-- none), budget window_ms, lease ('' for none), lost interval_ms, lost
-- hold_ms (what a state that cannot be read is rebuilt with); then, all ''
-- for a plain look: stale_after_ms ('': no look at the queue), '1' to check
-- the agent's slot, the record's JSON before and after its started_ms ('':
-- no record), 'agent' if the record's key is an agent's slot (a hash)
-- else 'call', the record's time to live, a new marker ('': no greeting),
-- the call's note for the tab map ('': none), which is read along and, on
-- GO, noted (note_tabs).
-- Reply: {decision, now_ms, until_ms, now_us, lease-bound holds?, holds,
-- marker, marker created?, tab map (as the note left it)} or {CORRUPT, aside, ...}; the decision
-- is AGENT_BUSY or QUEUED when nothing was done.
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
local marker, created, tabs, known = read_along(ARGV[18] or '', (ARGV[19] or '') ~= '', KEYS[1])
local function reply(decision, at, bound, holds)
  return { decision, now, at, us, flag(bound), holds, marker, created, tabs }
end
if ARGV[13] == '1' then
  local slot = redis.pcall('HMGET', KEYS[4], 'call', 'open')
  if slot.err == nil and slot[2] == '1' and slot[1] ~= call then
    return reply(AGENT_BUSY, 0, false, 0)
  end
end
if (ARGV[12] or '') ~= '' and ahead(KEYS[5], 'all', tonumber(ARGV[12]), us) > 0 then
  return reply(QUEUED, 0, false, 0)
end
local s, raw = load(site, now, known)
if not s then
  local r = heal(site, raw, us, tonumber(ARGV[10]), tonumber(ARGV[11]))
  return { r[1], r[2], 0, us, 0, 0, marker, created, tabs }
end
local dropped = drop_lapsed(s)
local decision, at = try_admit(s, call, now, p, lease)
save(site, s, raw, now)
if dropped then wake() end
if decision == GO and (ARGV[14] or '') ~= '' then
  save_record(KEYS[4], ARGV[16], call, ARGV[14], now, ARGV[15], ARGV[17])
end
if decision == GO then tabs = note_tabs(tabs, ARGV[19] or '', now) end
local bound = false
for _, f in ipairs(s.in_flight) do
  if f.lease then bound = true end
end
return reply(decision, at, bound, #s.in_flight)
