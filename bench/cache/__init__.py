"""The cache workload of the slow-disk bench: `python -m bench run --workload cache`.

An origin nginx on loopback serves objects from tmpfs (fast, unthrottled); the configs under test
proxy and cache them on the throttled loop-device HDDs. Three loads run at once: cold misses that
fill the disks, re-reads of a warm set already cached on the disks, and one hot object that stays
in the page cache. See docs/benchmark.md, "Cache workload"."""
