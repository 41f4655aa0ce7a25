-- One benchmark scenario for wrk, described by its arguments (after wrk's `--`):
--   method path-template id-mode id-min id-max body [header-name header-value]...
-- path-template may hold {id}; id-mode is `random` (uniform in [id-min, id-max]),
-- `sequential` (id-min, id-min + 1, ...: each id once, for DELETE) or `none`; body `-` is none.
-- At the end it prints one line, `RESULT {json}`, that bench/run.ts reads.

local method, template, mode, lo, hi, body
local headers = {}
local next_id

function init(args)
  method, template, mode = args[1], args[2], args[3]
  lo, hi = tonumber(args[4]), tonumber(args[5])
  body = args[6] ~= "-" and args[6] or nil
  for i = 7, #args, 2 do headers[args[i]] = args[i + 1] end
  next_id = lo
  math.randomseed(os.time())
end

function request()
  local id
  if mode == "random" then
    id = math.random(lo, hi)
  elseif mode == "sequential" then
    id = next_id
    next_id = next_id + 1
  end
  local path = id and template:gsub("{id}", tostring(id)) or template
  return wrk.format(method, path, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
