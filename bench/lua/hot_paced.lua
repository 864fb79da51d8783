-- The "constant load", paced: as hot.lua, but each connection waits the given milliseconds after
-- an answer before it asks again (bench.settings.Settings.hot_think_ms). A separate script
-- because wrk takes the mere presence of delay() as "this load waits", even for 0 ms.
-- Arguments (after `--`): the milliseconds; optionally N, to close every N-th request's
-- connection as hot_reconnect.lua does (0 or none: never).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")
local clients = require("clients")

local think_ms = 0
local every = 0

function init(args)
  think_ms = assert(tonumber(args[1]), "hot_paced.lua needs the milliseconds to wait")
  every = tonumber(args[2] or "0") or 0
end

function delay()
  return think_ms
end

function request()
  return clients.next_request(every)
end

done = report.done
