"""Slow-disk benchmark for tpgen: stock nginx vs tpgen's config vs the article's layout.

Loop devices over files stand in for HDDs; cgroup block-I/O throttles give them an HDD's bandwidth
and IOPS, a memory cgroup keeps nginx's page cache far below the data set, and wrk with Lua
scripts plays the article's "random" (cold) and "constant" (hot) loads. See docs/benchmark.md.
"""
