
-- hello: the server's time, and the marker (greet() in base.lua).
-- KEYS[1]: the marker. ARGV: prefix, clock, a new marker.
-- Reply: {now_us, marker, created?}.
local marker, created = greet(ARGV[3])
return { now_us(), marker, created }
