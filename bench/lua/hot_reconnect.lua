-- The "constant load" from clients that come and go: as hot.lua, but every N-th request of a wrk
-- thread closes its connection (lua/clients.lua). A separate script because wrk sends hot.lua's
-- one prebuilt request without calling Lua; building each request here costs wrk some CPU.
-- Argument (after `--`): N (bench.settings.Settings.reconnect_every).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local report = require("report")
local clients = require("clients")

local every = 0

function init(args)
  every = assert(tonumber(args[1]), "hot_reconnect.lua needs N: close every N-th request")
end

function request()
  return clients.next_request(every)
end

done = report.done
