
-- join: take the next ticket in a site's queue. Tickets follow the server's
-- clock in µs (and always grow), so the log can compare arrival order
-- across quiet spells, and are unique across sites.
-- KEYS[1]: the site's queue (ticket → ticket), KEYS[2]: the last ticket
-- given. ARGV: prefix, clock, place ttl_ms, queue ttl_ms.
-- Reply: {the ticket, how many live places are ahead of it} (ahead() in
-- base.lua: the first look the caller makes, in the same round trip).
local last = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local t = int(math.max(last + 1, now_us()))
redis.call('SET', KEYS[2], t)
redis.call('SET', P .. 'place:' .. t, '1', 'PX', ARGV[3])
redis.call('ZADD', KEYS[1], t, t)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return { tonumber(t), ahead(KEYS[1], t, tonumber(ARGV[4])) }
