-- The "constant load", paced: as hot.lua, but each connection waits the given milliseconds after
-- an answer before it asks again (bench.settings.Settings.hot_think_ms). A separate script
-- because wrk takes the mere presence of delay() as "this load waits", even for 0 ms.
-- Argument (after `--`): the milliseconds.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")

local think_ms = 0

function init(args)
  think_ms = assert(tonumber(args[1]), "hot_paced.lua needs the milliseconds to wait")
end

function delay()
  return think_ms
end

done = report.done
