-- The cache bench's "fill" load: every request asks for a key nobody asked for before, so every
-- request misses the cache, is fetched from the origin and written to a disk.
-- Argument (after `--`): a URI prefix unique to the trial, e.g. /fill/r1-tpgen
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")

local next_id = 0
local prefix = "/fill/x"
local counter = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  prefix = (args[1] or "/fill/x") .. "-" .. (id or 0) .. "-"
end

function request()
  counter = counter + 1
  return wrk.format("GET", prefix .. counter .. ".bin")
end

done = report.done
