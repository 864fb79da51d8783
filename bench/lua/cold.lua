-- The "random load": every request asks for a random file of the data set, so nearly every
-- request misses the page cache and reads from a disk.
-- Arguments (after `--`): the file listing one URI per line, and a seed.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")

local uris = {}
local next_id = 0

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
end

function request()
  return wrk.format("GET", uris[math.random(#uris)])
end

done = report.done
