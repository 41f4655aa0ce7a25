-- One benchmark scenario for wrk, described by its arguments (after wrk's `--`):
--   method path-template id-mode id-min id-max body [header-name header-value]...
-- path-template may hold {id}; id-mode is `random` (uniform in [id-min, id-max]),
-- `sequential` (id-min, id-min + 1, ...: each id once, for DELETE) or `none`; body `-` is none.
-- At the end it prints one line, `RESULT {json}`, that bench/run.ts reads.
--
-- Requests are formatted ahead, in init, so that wrk spends as little as it can per
-- request: on a small machine the load generator must not be what limits the server.

local requests = {}
local count, nxt = 0, 0
local method, template, headers, body
local sequential_from

local function format(id)
  local path = id and template:gsub("{id}", tostring(id)) or template
  return wrk.format(method, path, headers, body)
end

function init(args)
  method, template = args[1], args[2]
  local mode, lo, hi = args[3], tonumber(args[4]), tonumber(args[5])
  body = args[6] ~= "-" and args[6] or nil
  headers = {}
  for i = 7, #args, 2 do headers[args[i]] = args[i + 1] end
  math.randomseed(os.time())
  if mode == "random" then
    -- 65,536 requests drawn at random, cycled: the ids spread over the whole range.
    count = 65536
    for i = 1, count do requests[i] = format(math.random(lo, hi)) end
  elseif mode == "sequential" then
    sequential_from = lo
  else
    count = 1
    requests[1] = format(nil)
  end
end

function request()
  if sequential_from then
    local id = sequential_from
    sequential_from = sequential_from + 1
    return format(id)
  end
  nxt = nxt % count + 1
  return requests[nxt]
end

-- The RESULT line both scripts print, from the file beside this one (wrk loads one script).
dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "report.lua")
