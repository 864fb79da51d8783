-- Shared by the hot scripts that build each request: clients that come and go.
local clients = {}

-- The next request of this wrk thread. Every `every`-th one (0: none) carries Connection: close,
-- so the server closes that connection after answering and wrk opens a new one, which the kernel
-- gives to a worker waiting at that moment: connections are re-placed during the trial.
local count = 0
function clients.next_request(every)
  count = count + 1
  if every > 0 and count % every == 0 then
    return wrk.format(nil, nil, {["Connection"] = "close"})
  end
  return wrk.format(nil, nil)
end

return clients
