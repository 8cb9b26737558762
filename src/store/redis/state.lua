-- The steps of src/pacing/decision.rs on a site's state, line for line, as
-- src/pacing/step.rs applies them, so that the server applies exactly what
-- the file store applies under its lock. Keep the two in step; the
-- differential test in redis/tests.rs runs both on the same timelines and
-- compares every decision and every state. Comes after base.lua.

-- Reading: what serde reads into SiteState (absent fields take their
-- defaults, unknown ones are ignored, null only where the field is an
-- Option), or nil: unreadable.

local function uint(v, max)
  if type(v) ~= 'number' or v < 0 or v ~= math.floor(v) or v > (max or math.huge) then
    return nil
  end
  return math.min(v, SAT)
end
local function list(v)
  if type(v) ~= 'table' then return nil end
  local n = #v
  for k in pairs(v) do
    if type(k) ~= 'number' or k < 1 or k > n or k ~= math.floor(k) then return nil end
  end
  return v
end
local function field(t, name, default, max)
  local v = t[name]
  if v == nil then return default end
  return uint(v, max)
end

local function decode(raw, site)
  -- cjson is there when a call runs, not when the library loads.
  local null = cjson.null
  local ok, s = pcall(cjson.decode, raw)
  if not ok or type(s) ~= 'table' or s.site ~= site then return nil end
  local st = { site = site, in_flight = {}, admits = {} }
  if s.last_finish_ms ~= nil and s.last_finish_ms ~= null then
    st.last_finish_ms = uint(s.last_finish_ms)
    if not st.last_finish_ms then return nil end
  end
  st.after_ms = field(s, 'after_ms', 0)
  st.keep = field(s, 'keep', 0, U32)
  if not st.after_ms or not st.keep then return nil end
  if s.in_flight ~= nil then
    local fs = list(s.in_flight)
    if not fs then return nil end
    for _, f in ipairs(fs) do
      if type(f) ~= 'table' or type(f.call) ~= 'string' then return nil end
      local g = {
        call = f.call,
        started_ms = field(f, 'started_ms', nil),
        until_ms = field(f, 'until_ms', nil),
        interval_ms = field(f, 'interval_ms', 0),
      }
      if not (g.started_ms and g.until_ms and g.interval_ms) then return nil end
      if f.lease ~= nil and f.lease ~= null then
        if type(f.lease) ~= 'string' then return nil end
        g.lease = f.lease
      end
      st.in_flight[#st.in_flight + 1] = g
    end
  end
  if s.backoff ~= nil and s.backoff ~= null then
    local b = s.backoff
    if type(b) ~= 'table' then return nil end
    st.backoff = {
      set_ms = field(b, 'set_ms', nil),
      until_ms = field(b, 'until_ms', nil),
      strikes = field(b, 'strikes', 0, U32),
    }
    if not (st.backoff.set_ms and st.backoff.until_ms and st.backoff.strikes) then return nil end
  end
  if s.admits ~= nil then
    local as = list(s.admits)
    if not as then return nil end
    for _, t in ipairs(as) do
      local v = uint(t)
      if not v then return nil end
      st.admits[#st.admits + 1] = v
    end
  end
  return st
end

-- Writing: the JSON serde writes for SiteState, field for field, with
-- integers printed in full and empty lists as [] (cjson would write {}).
local function encode(s)
  local o = { '{"site":', cjson.encode(s.site), ',"last_finish_ms":',
    s.last_finish_ms and int(s.last_finish_ms) or 'null',
    ',"after_ms":', int(s.after_ms), ',"in_flight":[' }
  for i, f in ipairs(s.in_flight) do
    if i > 1 then o[#o + 1] = ',' end
    o[#o + 1] = '{"call":' .. cjson.encode(f.call) .. ',"started_ms":' .. int(f.started_ms)
      .. ',"until_ms":' .. int(f.until_ms) .. ',"interval_ms":' .. int(f.interval_ms)
    if f.lease then o[#o + 1] = ',"lease":' .. cjson.encode(f.lease) end
    o[#o + 1] = '}'
  end
  o[#o + 1] = ']'
  if s.backoff then
    local b = s.backoff
    o[#o + 1] = ',"backoff":{"set_ms":' .. int(b.set_ms) .. ',"until_ms":' .. int(b.until_ms)
      .. ',"strikes":' .. int(b.strikes) .. '}'
  end
  if #s.admits > 0 then
    local ts = {}
    for i, t in ipairs(s.admits) do ts[i] = int(t) end
    o[#o + 1] = ',"admits":[' .. table.concat(ts, ',') .. ']'
  end
  if s.keep > 0 then o[#o + 1] = ',"keep":' .. int(s.keep) end
  o[#o + 1] = '}'
  return table.concat(o)
end

local function new_state(site)
  return { site = site, after_ms = 0, in_flight = {}, admits = {}, keep = 0 }
end

-- Point K (base.lua) at another site's keys.
local function on_site(site)
  K.state, K.sites, K.changed = P .. 'site:' .. site, P .. 'sites', P .. 'changed:' .. site
end
--
-- Returns the state and the stored text (false: a new site), or nil and why
-- it cannot be read. A state missing while the set of known sites says it
-- was written within its lifetime was lost (evicted, deleted by hand): as
-- with a site directory without its state file, that reads as busy, never
-- as a new site. An empty server has neither, and is a fresh gate.
-- `known`: the state's text if the caller read it already (read_along).
local function load(site, now_ms, known)
  local raw = known or redis.pcall('GET', K.state)
  if type(raw) == 'table' then return nil, 'wrongtype' end
  if raw == false then
    local seen = redis.call('ZSCORE', K.sites, site)
    if seen and tonumber(seen) + STATE_TTL - 60000 > now_ms then return nil, 'missing' end
    return new_state(site), false
  end
  local s = decode(raw, site)
  if not s then return nil, 'unreadable' end
  return s, raw
end

-- Write the state back if it changed (raw: what was read).
local function save(site, s, raw, now_ms)
  local text = encode(s)
  if text == raw then return false end
  redis.call('SET', K.state, text, 'PX', STATE_TTL_TEXT)
  redis.call('ZADD', K.sites, now_ms, site)
  -- Scores are whole ms: below now_ms - STATE_TTL is up to one less.
  redis.call('ZREMRANGEBYSCORE', K.sites, '-inf', now_ms - STATE_TTL - 1)
  return true
end

-- Tell whoever watches the site that its state changed.
-- A list that holds a wake-up already has nobody blocked on it (a blocked
-- BLPOP takes what comes at once): it is kept, one element, for another
-- WAKE_TTL.
local function wake()
  if redis.call('LLEN', K.changed) == 0 then redis.call('LPUSH', K.changed, '1') end
  redis.call('PEXPIRE', K.changed, WAKE_TTL)
end

-- SiteState::lost, written in place of a state that cannot be read, which is
-- kept aside for a week. Returns the reply for the caller: CORRUPT and where
-- the unreadable state went ('' if nowhere).
local function heal(site, why, us, interval, hold)
  local now = ceil_ms(us)
  local aside = ''
  if why ~= 'missing' then
    aside = K.state .. ':lost-' .. int(now)
    redis.call('RENAME', K.state, aside)
    redis.call('PEXPIRE', aside, ASIDE_TTL)
  end
  local s = new_state(site)
  s.last_finish_ms = now
  s.after_ms = interval
  s.in_flight[1] = {
    call = '[lost state]', started_ms = now, until_ms = add(now, hold), interval_ms = interval,
  }
  save(site, s, nil, now)
  return { CORRUPT, aside }
end

-- For a step that only writes (finish, cancel, confirm, extend): a state
-- that cannot be read is healed as lost (busy), then the step goes on against
-- the healed state, as the other stores do. Only an admission fails on it.
local function load_healed(site, us, interval, hold)
  local s, raw = load(site, floor_ms(us))
  if s then return s, raw end
  heal(site, raw, us, interval, hold)
  return load(site, floor_ms(us))
end

-- SiteState::drop_lapsed: a hold tied to a lease whose key has expired (its
-- process died or stopped) was never used. Returns whether any was dropped.
local function drop_lapsed(s)
  local leased = false
  for _, f in ipairs(s.in_flight) do
    if f.lease then leased = true end
  end
  if not leased then return false end
  local alive, kept = {}, {}
  for _, f in ipairs(s.in_flight) do
    local ok = true
    if f.lease then
      if alive[f.lease] == nil then
        alive[f.lease] = redis.call('EXISTS', P .. 'lease:' .. f.lease) == 1
      end
      ok = alive[f.lease]
    end
    if ok then kept[#kept + 1] = f end
  end
  local dropped = #kept ~= #s.in_flight
  s.in_flight = kept
  return dropped
end

-- SiteState::ready_at: nil means "at once, nothing was ever recorded".
local function ready_at(s, p)
  local r = nil
  local function take(t)
    if r == nil or t > r then r = t end
  end
  if s.last_finish_ms then take(add(s.last_finish_ms, math.max(s.after_ms, p.interval))) end
  for _, f in ipairs(s.in_flight) do take(add(f.until_ms, math.max(f.interval_ms, p.interval))) end
  if s.backoff then take(s.backoff.until_ms) end
  return r
end

local function budget_spent(s, now, calls, window)
  if calls == 0 then return add(now, window) end
  if #s.admits < calls then return nil end
  local free = add(s.admits[#s.admits - calls + 1], window)
  if free > now then return free end
  return nil
end

local function holds(s, call)
  for _, f in ipairs(s.in_flight) do
    if f.call == call then return true end
  end
  return false
end

local function normalize(s, now)
  local function ahead(t) return t > add(now, SLACK) end
  if s.last_finish_ms and ahead(s.last_finish_ms) then s.last_finish_ms = now end
  s.after_ms = math.min(s.after_ms, CEILING)
  for _, f in ipairs(s.in_flight) do
    local len = math.min(sub(f.until_ms, f.started_ms), CEILING)
    if ahead(f.started_ms) then f.started_ms = now end
    f.until_ms = math.min(f.until_ms, add(f.started_ms, len))
    f.interval_ms = math.min(f.interval_ms, CEILING)
  end
  for i, t in ipairs(s.admits) do
    if ahead(t) then s.admits[i] = now end
  end
  if s.backoff then
    local b = s.backoff
    local len = math.min(sub(b.until_ms, b.set_ms), CEILING)
    if ahead(b.set_ms) then b.set_ms = now end
    b.until_ms = math.min(b.until_ms, add(b.set_ms, len))
  end
end

local function record_finish(s, at, interval)
  local ready = add(at, interval)
  if s.last_finish_ms then ready = math.max(ready, add(s.last_finish_ms, s.after_ms)) end
  local last = at
  if s.last_finish_ms then last = math.max(s.last_finish_ms, at) end
  s.last_finish_ms = last
  s.after_ms = sub(ready, last)
end

local function fold_expired(s, now)
  local any = false
  for _, f in ipairs(s.in_flight) do
    if f.until_ms <= now then any = true end
  end
  if not any then return end
  local kept, expired = {}, {}
  for _, f in ipairs(s.in_flight) do
    if f.until_ms <= now then expired[#expired + 1] = f else kept[#kept + 1] = f end
  end
  s.in_flight = kept
  for _, f in ipairs(expired) do record_finish(s, f.until_ms, f.interval_ms) end
end

local function without(s, call)
  if not holds(s, call) then return false end
  local kept, found = {}, false
  for _, f in ipairs(s.in_flight) do
    if f.call == call then found = true else kept[#kept + 1] = f end
  end
  s.in_flight = kept
  return found
end

local function admit(s, call, now, p, lease)
  fold_expired(s, now)
  without(s, call)
  if s.keep > 0 then
    s.admits[#s.admits + 1] = now
    local excess = #s.admits - s.keep
    if excess > 0 then
      local kept = {}
      for i = excess + 1, #s.admits do kept[#kept + 1] = s.admits[i] end
      s.admits = kept
    end
  end
  s.in_flight[#s.in_flight + 1] = {
    call = call, started_ms = now, until_ms = add(now, p.hold), interval_ms = p.interval,
    lease = lease,
  }
end

-- SiteState::try_admit. Returns the decision and its time.
local function try_admit(s, call, now, p, lease)
  normalize(s, now)
  if holds(s, call) then return DUPLICATE, 0 end
  if p.calls then
    s.keep = math.max(s.keep, math.min(p.calls, MAX_BUDGET))
    local free = budget_spent(s, now, p.calls, p.window)
    if free then return OVER_BUDGET, free end
  end
  local ready = ready_at(s, p)
  if ready and now < ready then return WAIT, ready end
  admit(s, call, now, p, lease)
  return GO, 0
end

local function finish(s, call, now, interval)
  -- Times from before a clock step back are brought to now first, or the
  -- interval this finish requires would count from a finish that looks
  -- later than it was.
  normalize(s, now)
  local required, found, kept = interval, false, {}
  for _, f in ipairs(s.in_flight) do
    if f.call == call then
      required = math.max(required, f.interval_ms)
      found = true
    else
      kept[#kept + 1] = f
    end
  end
  s.in_flight = kept
  record_finish(s, now, required)
  return found
end

local function confirm(s, call, started, hold)
  local found = false
  for _, f in ipairs(s.in_flight) do
    if f.call == call then
      f.started_ms = started
      f.until_ms = add(started, hold)
      f.lease = nil
      found = true
    end
  end
  return found
end

local function extend(s, call, now, hold)
  normalize(s, now)
  local found = false
  for _, f in ipairs(s.in_flight) do
    -- A hold that ran out is not brought back: another call may have gone in.
    if f.call == call and f.until_ms > now then
      f.until_ms = math.max(f.until_ms, add(now, hold))
      found = true
    end
  end
  return found
end
