
-- ahead: how many live places are ahead of a ticket ('all': in the whole
-- queue). Reclaims on the way every place whose key has expired (its
-- process died, or was stopped for longer than its time to live) or that is
-- older than stale_after, and then wakes the new head.
-- KEYS[1]: the site's queue. ARGV: prefix, clock, ticket or 'all',
-- stale_after_ms.
-- Reply: the count.
local upto = '+inf'
if ARGV[3] ~= 'all' then upto = '(' .. ARGV[3] end
local stale = now_us() - tonumber(ARGV[4]) * 1000
local n, reclaimed = 0, false
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', upto)) do
  if redis.call('EXISTS', P .. 'place:' .. m) == 0 or tonumber(m) < stale then
    redis.call('ZREM', KEYS[1], m)
    redis.call('DEL', P .. 'place:' .. m, P .. 'wake:' .. m)
    reclaimed = true
  else
    n = n + 1
  end
end
if reclaimed then
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if head and head ~= ARGV[3] then
    redis.call('LPUSH', P .. 'wake:' .. head, '1')
    redis.call('PEXPIRE', P .. 'wake:' .. head, WAKE_TTL)
  end
end
return n
