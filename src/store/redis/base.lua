-- The prelude of every script of the Redis store (src/store/redis/mod.rs
-- prepends it): the key prefix, the clock, and numbers. The scripts that
-- step a site's state add state.lua after it.
--
-- ARGV[1] is the key prefix. ARGV[2] is empty, or in unit tests a clock (µs
-- since the epoch) that stands in for the server's TIME, so that a timeline
-- can be replayed; nothing else ever sets it.
--
-- Numbers are Lua doubles: exact for integers below 2^53 (epoch ms need 41
-- bits, µs 51). Every number that goes into a key name, an argument or the
-- stored JSON is printed with int(), never tostring(), which gives 14
-- significant digits ("1.7e+15"). Sums saturate at 2^53 - 1 instead of at
-- u64::MAX, and numbers read back are capped there too: a time that large
-- is "ages away" either way, and the state keeps reading back as a u64.

local P = ARGV[1]
local SLACK = 1000            -- decision::CLOCK_SLACK_MS
local CEILING = 86400000      -- decision::CEILING_MS
local MAX_BUDGET = 10000      -- decision::MAX_BUDGET_CALLS
local SAT = 9007199254740991  -- 2^53 - 1
local U32 = 4294967295
local STATE_TTL = 2678400000  -- 31 days: longer than any budget window (30 days) plus a ceiling
local ASIDE_TTL = 604800000   -- 7 days for an unreadable state set aside
local WAKE_TTL = 10000        -- a wake-up nobody takes is gone after this

local OK, CORRUPT = 0, 9
local GO, DUPLICATE, WAIT, OVER_BUDGET = 0, 1, 2, 3

local function int(n) return string.format('%.0f', n) end
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
