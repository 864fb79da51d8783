-- The "random load": every request asks for a random file of the data set, so nearly every
-- request misses the page cache and reads from a disk.
-- Arguments (after `--`): the file listing one URI per line, a seed (bench.settings.Settings.
-- cold_sequence_seed: the same seed, the same sequence), and optionally "close": every
-- request then carries Connection: close, so each one comes on a new connection (clients that
-- come and go; bench.settings.Settings.reconnect_every).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")

local uris = {}
local next_id = 0
local headers = nil

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local fh = assert(io.open(args[1], "r"))
  for line in fh:lines() do
    if line ~= "" then uris[#uris + 1] = line end
  end
  fh:close()
  assert(#uris > 0, "no URIs in " .. args[1])
  math.randomseed((tonumber(args[2]) or 1) * 1000 + (id or 0))
  if args[3] == "close" then
    headers = {["Connection"] = "close"}
  end
end

function request()
  return wrk.format("GET", uris[math.random(#uris)], headers)
end

done = report.done
