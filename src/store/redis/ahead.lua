
-- ahead: how many live places are ahead of a ticket ('all': in the whole
-- queue), reclaiming dead ones (ahead() in base.lua).
-- KEYS[1]: the site's queue. ARGV: prefix, clock, ticket or 'all',
-- stale_after_ms.
-- Reply: the count.
return ahead(KEYS[1], ARGV[3], tonumber(ARGV[4]))
