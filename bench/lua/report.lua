-- Shared by every load script: print wrk's summary as one JSON line the bench parses.
--
-- "latency_us" are wrk's own figures. Before `done` runs, wrk corrects its histogram for
-- coordinated omission (stats_correct in wrk 4.x, always on): for every answer that took n >= 2e
-- microseconds, e being the run's mean time between two answers of a connection, it adds
-- answers of n-e, n-2e, ... (all above e). A stall then weighs as much as the time it lasted,
-- whatever the arm's rate: its percentiles are what a request sent at a random moment waits.
-- "answers_us" takes the added answers back out, exactly, so each answer counts once: a closed
-- loop's fast answers outnumber its stalls there (small-files, one trial: p99 4.4 ms by answers,
-- 1.9 s by wrk's).
local ffi = require("ffi")

ffi.cdef[[
typedef struct {
  uint64_t count;
  uint64_t limit;
  uint64_t min;
  uint64_t max;
  uint64_t data[];
} tpgen_wrk_stats;
]]

local report = {}

-- e as wrk computes it in main(): integer divisions of the whole run's figures.
local function interval_us(summary, connections)
  local per_connection = math.floor(summary.requests / connections)
  if per_connection == 0 then return 0 end
  return math.floor(summary.duration / per_connection)
end

-- The answers' own histogram as {value, count} pairs, largest value first: wrk's walked down,
-- taking off each value the answers that stats_correct added there for the answers above it.
local function answered(stats, e)
  local made_up = {}  -- value -> answers stats_correct added at it
  local out = {}
  for n = tonumber(stats.max), tonumber(stats.min), -1 do
    local here = tonumber(stats.data[n])
    local fake = made_up[n] or 0
    if here > 0 or fake > 0 then
      local real = here - fake
      if real < 0 then error("wrk's histogram is not the one wrk 4.x corrects at " .. n) end
      if real > 0 then out[#out + 1] = {n, real} end
      -- stats_correct's chains: an answer at n, and one it added at n, add one at n - e > e
      if e > 0 and n - e > e then made_up[n - e] = (made_up[n - e] or 0) + real + fake end
      made_up[n] = nil
    end
  end
  return out
end

local function figures(pairs)
  local count, sum = 0, 0
  for _, pair in ipairs(pairs) do
    count = count + pair[2]
    sum = sum + pair[1] * pair[2]
  end
  -- a rank as wrk's stats_percentile takes it, walked from the smallest value
  local function percentile(p)
    local rank = math.floor(p / 100 * count + 0.5 + 0.5)
    local seen = 0
    for i = #pairs, 1, -1 do
      seen = seen + pairs[i][2]
      if seen >= rank then return pairs[i][1] end
    end
    return 0
  end
  if count == 0 then
    return {count = 0, min = 0, mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0}
  end
  return {
    count = count, min = pairs[#pairs][1], mean = sum / count, p50 = percentile(50),
    p90 = percentile(90), p99 = percentile(99), max = pairs[1][1],
  }
end

function report.done(summary, latency, requests)
  local connections = tonumber(os.getenv("TPGEN_WRK_CONNECTIONS"))
  if not connections or connections < 1 then
    error("TPGEN_WRK_CONNECTIONS: wrk's --connections, which its latency correction divides by")
  end
  local stats = ffi.cast("tpgen_wrk_stats **", latency)[0]
  local answers = figures(answered(stats, interval_us(summary, connections)))
  local e = summary.errors
  io.write(string.format(
    'TPGEN-WRK {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d},' ..
    '"answers_us":{"count":%d,"min":%d,"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max,
    answers.count, answers.min, answers.mean, answers.p50, answers.p90, answers.p99,
    answers.max))
end

return report
