-- Shared by cold.lua and hot.lua: print wrk's summary as one JSON line the bench parses.
local report = {}

function report.done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'TPGEN-WRK {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max))
end

return report
