
-- hello: the server's time, and the marker that says which life of the
-- server's data this is. Set once (NX) by whoever finds it missing, with no
-- expiry: it goes only when the data goes (an empty restart, a flush).
-- KEYS[1]: the marker. ARGV: prefix, clock, a new marker.
-- Reply: {now_us, marker, created?}.
local created = redis.call('SET', KEYS[1], ARGV[3], 'NX')
return { now_us(), redis.call('GET', KEYS[1]), flag(created) }
