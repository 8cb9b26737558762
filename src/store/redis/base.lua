-- The prelude of every script of the Redis store (src/store/redis/mod.rs
-- prepends it): the key prefix, the clock, and numbers. The scripts that
-- step a site's state add state.lua after it.
--
-- The same text runs two ways: as the body of the store's function library
-- (FUNCTION LOAD, once per server and library version; each step a function,
-- FCALL), and, on a server without functions, as the head of each script
-- (EVALSHA, EVAL), which then runs it on every call. Either way a call begins
-- with begin(): KEYS and ARGV are the call's (a function's parameters, or a
-- script's globals), and P and K are set from them; nothing else here changes
-- from one call to the next.
--
-- ARGV[1] is the key prefix. ARGV[2] is empty, or in unit tests a clock (µs
-- since the epoch) that stands in for the server's TIME, so that a timeline
-- can be replayed; nothing else ever sets it.
--
-- Numbers are Lua doubles: exact for integers below 2^53 (epoch ms need 41
-- bits, µs 51). Every number that goes into a key name, an argument or the
-- stored JSON is printed with int(), never tostring(), which gives 14
-- significant digits ("1.7e+15"); int() prints with '%d', which Lua 5.1
-- casts to a C long (64 bits), exact and a third the cost of '%.0f'. A time
-- in ms (13 digits) goes to redis.call as a number: every Redis prints it
-- exactly (14 significant digits or more), and without a string.format.
-- Sums saturate at 2^53 - 1 instead of at
-- u64::MAX, and numbers read back are capped there too: a time that large
-- is "ages away" either way, and the state keeps reading back as a u64.

local KEYS, ARGV, P = nil, nil, nil
-- K.state is the site's state, K.sites the set of known sites (score: the
-- last write), K.changed the site's wake-up list: KEYS[1] to KEYS[3], or
-- another site's after on_site() (state.lua).
local K = {}
local function begin(keys, args)
  KEYS, ARGV, P = keys, args, args[1]
  K.state, K.sites, K.changed = keys[1], keys[2], keys[3]
end
local SLACK = 1000            -- decision::CLOCK_SLACK_MS
local CEILING = 86400000      -- decision::CEILING_MS
local MAX_BUDGET = 10000      -- decision::MAX_BUDGET_CALLS
local SAT = 9007199254740991  -- 2^53 - 1
local U32 = 4294967295
local STATE_TTL = 2678400000  -- 31 days: longer than any budget window (30 days) plus a ceiling
local STATE_TTL_TEXT = '2678400000'
local ASIDE_TTL = 604800000   -- 7 days for an unreadable state set aside
local WAKE_TTL = 10000        -- a wake-up nobody takes is gone after this
local TABS_TTL = 2592000000   -- 30 days: the tab map after its last change
-- The most bytes of notes a tab map takes after it (note_tabs) before the
-- next change is left to its caller, who writes the map whole.
local TAB_NOTES_MAX = 32768

local OK, CORRUPT = 0, 9
local GO, DUPLICATE, WAIT, OVER_BUDGET = 0, 1, 2, 3
-- What an admission that did nothing says (admit.lua).
local AGENT_BUSY, QUEUED = 4, 5

-- A step prints its own time several times (the state, the record): the
-- last two numbers printed are kept with their text (a pure cache, right
-- across calls too), and 0 is not printed at all.
local int_a, int_a_text, int_b, int_b_text = nil, nil, nil, nil
local function int(n)
  if n == 0 then return '0' end
  if n == int_a then return int_a_text end
  if n == int_b then return int_b_text end
  local text = string.format('%d', n)
  int_b, int_b_text, int_a, int_a_text = int_a, int_a_text, n, text
  return text
end
local function add(a, b)
  local s = a + b
  if s > SAT then return SAT end
  return s
end
local function sub(a, b)
  if b >= a then return 0 end
  return a - b
end

local function now_us()
  if ARGV[2] ~= '' then return tonumber(ARGV[2]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
-- Admissions round down and finishes up (clock.rs), so a recorded gap is
-- never longer than the real one.
local function floor_ms(us) return (us - us % 1000) / 1000 end
local function ceil_ms(us)
  if us % 1000 > 0 then return floor_ms(us) + 1 end
  return floor_ms(us)
end

local function flag(b)
  if b then return 1 end
  return 0
end

-- The marker that says which life of the server's data this is: set once
-- (NX) by whoever finds it missing, with no expiry, so it goes only when
-- the data goes (an empty restart, a flush). Returns it and whether this
-- call set it.
local function greet(fresh)
  local created = redis.call('SET', P .. 'marker', fresh, 'NX')
  return redis.call('GET', P .. 'marker'), flag(created)
end

-- The marker, the tab map and the site's state in one read, as an
-- admission or a finish wants them (`fresh`: a new marker, '' for no
-- greeting; `tabs`: whether to read the tab map; `state`: the state's key, or
-- nil). Anything MGET cannot tell from a missing key is read again on its
-- own: no marker (greet() sets it), a state that is not there or not a
-- string (load() tells which). Returns the marker (false: not asked), whether
-- this call set it, the tab map (false: none, or not a string), and the
-- state's text (nil: look again).
local function read_along(fresh, tabs, state)
  local got
  if state then
    got = redis.call('MGET', P .. 'marker', P .. 'tabs', state)
  else
    got = redis.call('MGET', P .. 'marker', P .. 'tabs')
  end
  local marker, created = false, 0
  if fresh ~= '' then
    if got[1] then marker = got[1] else marker, created = greet(fresh) end
  end
  local map = false
  if tabs then map = got[2] end
  local raw = nil
  if state and got[3] then raw = got[3] end
  return marker, created, map, raw
end

-- Append `note` (a TabNote's JSON; '' for none) to the tab map read as
-- `map` (false: none, or not a string), with the time `now_ms`, as
-- `[now_ms,note]` on a line of its own: every reader applies it
-- (TabMap::read). Not done to a key of another type, nor to a map whose
-- notes reach TAB_NOTES_MAX: the caller's own update of the map, which comes
-- next, then writes it whole. Returns the map as it is now, for that update
-- to find the change made (or not).
local function note_tabs(map, note, now_ms)
  if note == '' then return map end
  local key = P .. 'tabs'
  local line = '\n[' .. int(now_ms) .. ',' .. note .. ']'
  if not map then
    if redis.call('EXISTS', key) == 1 then return map end
    map = '{}' .. line
    redis.call('SET', key, map, 'PX', TABS_TTL)
    return map
  end
  local first = string.find(map, '\n', 1, true)
  if first and #map - first >= TAB_NOTES_MAX then return map end
  redis.call('APPEND', key, line)
  redis.call('PEXPIRE', key, TABS_TTL)
  return map .. line
end

-- Save a call's record at `key` (an admission's): the agent's slot (a
-- hash: the call, open, its record) if `kind` is 'agent', else the call's
-- own key; its JSON is `head`, the admission's time, `tail`.
local function save_record(key, kind, call, head, now_ms, tail, ttl_ms)
  local record = head .. int(now_ms) .. tail
  if kind == 'agent' then
    -- The slot's three fields are all it holds: written over in place, or,
    -- if the key is not a hash, after it is deleted.
    if type(redis.pcall('HSET', key, 'call', call, 'open', '1', 'record', record)) == 'table' then
      redis.call('DEL', key)
      redis.call('HSET', key, 'call', call, 'open', '1', 'record', record)
    end
    redis.call('PEXPIRE', key, ttl_ms)
  else
    redis.call('SET', key, record, 'PX', ttl_ms)
  end
end

-- How many live places in `queue` are ahead of `ticket` ('all': in the
-- whole queue). Reclaims on the way every place whose key has expired (its
-- process died, or was stopped for longer than its time to live) or that is
-- older than stale_after, and then wakes the new head. `us`: the call's
-- time if it read it already (one script, one instant), else read here.
local function ahead(queue, ticket, stale_after_ms, us)
  local upto = '+inf'
  if ticket ~= 'all' then upto = '(' .. ticket end
  local stale = (us or now_us()) - stale_after_ms * 1000
  local n, reclaimed = 0, false
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', queue, '-inf', upto)) do
    if redis.call('EXISTS', P .. 'place:' .. m) == 0 or tonumber(m) < stale then
      redis.call('ZREM', queue, m)
      redis.call('DEL', P .. 'place:' .. m, P .. 'wake:' .. m)
      reclaimed = true
    else
      n = n + 1
    end
  end
  if reclaimed then
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    if head and head ~= ticket then
      redis.call('LPUSH', P .. 'wake:' .. head, '1')
      redis.call('PEXPIRE', P .. 'wake:' .. head, WAKE_TTL)
    end
  end
  return n
end
