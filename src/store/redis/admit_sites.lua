-- admit_sites: a call's admission at each of several sites at once, only if
-- every one is free (Store::admit_sites): nothing is done while the agent's
-- open call is another one, or while anyone queues for any of the sites;
-- every site is looked at (drop_lapsed, try_admit, as admit.lua does), and
-- only if each says GO or DUPLICATE are the states written, and the call's
-- record saved (unless every site was a duplicate). Else nothing is
-- written: no hold to give back, as the same steps one by one would.
-- KEYS[1]: the record's key (the agent's slot, or the call's own); the
-- sites' keys are made from their names (on_site), as finish_call.lua does.
-- ARGV: prefix, clock, call, '1' to check the agent's slot, the record's
-- JSON before and after its started_ms, 'agent' if the record's key is an
-- agent's slot (a hash) else 'call', the record's time to live, a new
-- marker ('': no greeting), the call's note for the tab map ('': none; read
-- along, and noted when the call is taken), stale_after_ms, the
-- number of sites; then for each site: its name, interval_ms, hold_ms,
-- budget calls ('' for none), budget window_ms, and the lost interval_ms
-- and hold_ms a state that cannot be read is rebuilt with.
-- Reply: {decision, now_ms, now_us, marker, marker created?, tab map (as
-- the note left it), then
-- for each site whether it was a duplicate}; decision is GO (every site
-- taken), AGENT_BUSY, QUEUED, WAIT (a site not due or over its budget), or
-- CORRUPT, with the site's index and where its state went after the tab
-- map.
local call = ARGV[3]
local us = now_us()
local now = floor_ms(us)
local marker, created, tabs = read_along(ARGV[9], ARGV[10] ~= '', nil)
local function reply(decision, rest)
  local r = { decision, now, us, marker, created, tabs }
  for _, v in ipairs(rest or {}) do r[#r + 1] = v end
  return r
end
if ARGV[4] == '1' then
  local slot = redis.pcall('HMGET', KEYS[1], 'call', 'open')
  if slot.err == nil and slot[2] == '1' and slot[1] ~= call then
    return reply(AGENT_BUSY)
  end
end
local n, stale = tonumber(ARGV[12]), tonumber(ARGV[11])
local sites = {}
for i = 1, n do
  local b = 12 + (i - 1) * 7
  local p = { interval = tonumber(ARGV[b + 2]), hold = tonumber(ARGV[b + 3]) }
  if ARGV[b + 4] ~= '' then
    p.calls = tonumber(ARGV[b + 4])
    p.window = tonumber(ARGV[b + 5])
  end
  sites[i] = { name = ARGV[b + 1], p = p, lost = { tonumber(ARGV[b + 6]), tonumber(ARGV[b + 7]) } }
end
for i = 1, n do
  if ahead(P .. 'queue:' .. sites[i].name, 'all', stale, us) > 0 then return reply(QUEUED) end
end
for i = 1, n do
  local site = sites[i]
  on_site(site.name)
  local s, raw = load(site.name, now)
  if not s then
    local r = heal(site.name, raw, us, site.lost[1], site.lost[2])
    return reply(r[1], { i, r[2] })
  end
  site.s, site.raw = s, raw
  site.dropped = drop_lapsed(s)
  site.decision = try_admit(s, call, now, site.p, nil)
  if site.decision ~= GO and site.decision ~= DUPLICATE then return reply(WAIT) end
end
local duplicates, all_duplicates = {}, true
for i = 1, n do
  local site = sites[i]
  on_site(site.name)
  save(site.name, site.s, site.raw, now)
  if site.dropped then wake() end
  duplicates[i] = flag(site.decision == DUPLICATE)
  if site.decision ~= DUPLICATE then all_duplicates = false end
end
if not all_duplicates and ARGV[5] ~= '' then
  save_record(KEYS[1], ARGV[7], call, ARGV[5], now, ARGV[6], ARGV[8])
end
if not all_duplicates then tabs = note_tabs(tabs, ARGV[10], now) end
return reply(GO, duplicates)
