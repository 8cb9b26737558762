
-- take_call: close a call's record. With an agent (KEYS[1] its slot, a hash
-- of call, open and record), the slot is closed if it holds this call and
-- is open; otherwise (or without one) the call's own record, KEYS[#KEYS], is
-- taken and deleted.
-- ARGV: prefix, clock, call.
-- Reply: the record's JSON, or nil.
if #KEYS == 2 then
  local v = redis.pcall('HMGET', KEYS[1], 'call', 'open', 'record')
  if v[1] == ARGV[3] and v[2] == '1' then
    redis.call('HSET', KEYS[1], 'open', '0')
    return v[3]
  end
end
local r = redis.pcall('GETDEL', KEYS[#KEYS])
if type(r) == 'table' then return false end
return r
