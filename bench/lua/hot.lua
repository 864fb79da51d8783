-- The "constant load": every request asks for the same file (the URL's path), which stays in
-- the page cache; its latency shows whether the event loop is free while the disks are busy.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")

done = report.done
