
-- leave: give up a place, and wake the caller just behind it, which may now
-- be at the head.
-- KEYS[1]: the site's queue. ARGV: prefix, clock, ticket.
-- Reply: 1 if the place was still there.
local t = ARGV[3]
local removed = redis.call('ZREM', KEYS[1], t)
redis.call('DEL', P .. 'place:' .. t, P .. 'wake:' .. t)
local next = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. t, '+inf', 'LIMIT', 0, 1)[1]
if next then
  redis.call('LPUSH', P .. 'wake:' .. next, '1')
  redis.call('PEXPIRE', P .. 'wake:' .. next, WAKE_TTL)
end
return removed
