
-- finish_call: a call's whole finish (Store::finish_call): take its record
-- (take_call.lua), then SiteState::finish at the server's time, rounded up,
-- on every site it names and every revealed one (finish.lua on each), with
-- the record's interval; the server's time and marker read along; and the
-- tab map read along and the call's note added to it (note_tabs), with the
-- finish's time rounded down.
-- KEYS[1]: the agent's slot (a hash) if ARGV[4] is '1'; KEYS[#KEYS]: the
-- call's own record. ARGV: prefix, clock, call, agent?, lost interval_ms,
-- lost hold_ms, a new marker ('': no greeting), the call's note for the tab
-- map ('': none), then the revealed sites.
-- Reply: {now_us, marker, marker created?, tab map (as the note left it),
-- then per site: site, finish_ms, its state}.
local call = ARGV[3]
local us = now_us()
local marker, created, tabs = read_along(ARGV[7], ARGV[8] ~= '', nil)
tabs = note_tabs(tabs, ARGV[8], floor_ms(us))
local record = nil
if ARGV[4] == '1' then
  local v = redis.pcall('HMGET', KEYS[1], 'call', 'open', 'record')
  if v.err == nil and v[1] == call and v[2] == '1' then
    redis.call('HSET', KEYS[1], 'open', '0')
    record = v[3]
  end
end
if not record then
  local r = redis.pcall('GETDEL', KEYS[#KEYS])
  if type(r) == 'string' then record = r end
end
-- What serde reads as a CallRecord, or nothing.
local sites, interval = {}, 0
if record then
  local ok, r = pcall(cjson.decode, record)
  local valid = ok and type(r) == 'table' and type(r.call) == 'string' and uint(r.started_ms)
    and list(r.sites) ~= nil
  if valid then
    for _, x in ipairs(r.sites) do
      if type(x) ~= 'string' then valid = false end
    end
  end
  if valid and r.interval_ms ~= nil then
    valid = uint(r.interval_ms) ~= nil
  end
  if valid then
    for _, x in ipairs(r.sites) do sites[#sites + 1] = x end
    interval = uint(r.interval_ms or 0)
  end
end
for i = 9, #ARGV do
  local seen = false
  for _, x in ipairs(sites) do
    if x == ARGV[i] then seen = true end
  end
  if not seen then sites[#sites + 1] = ARGV[i] end
end
local out = { us, marker, created, tabs }
for _, site in ipairs(sites) do
  on_site(site)
  local s, raw = load_healed(site, us, tonumber(ARGV[5]), tonumber(ARGV[6]))
  drop_lapsed(s)
  local now = ceil_ms(us)
  finish(s, call, now, interval)
  save(site, s, raw, now)
  wake()
  out[#out + 1] = site
  out[#out + 1] = now
  out[#out + 1] = encode(s)
end
return out
