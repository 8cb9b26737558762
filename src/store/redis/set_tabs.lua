
-- set_tabs: write the tab map if it is still the one the caller read (a
-- compare-and-set, in place of WATCH/MULTI/EXEC: one round trip, not four).
-- A key of another type reads as no map, and is replaced.
-- KEYS[1]: the tab map. ARGV: prefix, clock, the SHA-1 of the map read ('':
-- there was none), the new map.
-- Reply: {1} written, or {0, the map as it is now}.
local cur = redis.pcall('GET', KEYS[1])
if type(cur) == 'table' then cur = false end
local seen = ''
if cur then seen = redis.sha1hex(cur) end
if seen ~= ARGV[3] then return { 0, cur } end
redis.call('SET', KEYS[1], ARGV[4], 'PX', TABS_TTL)
return { 1 }
