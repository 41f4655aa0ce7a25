-- A request whose body differs from one request to the next, for wrk, described by its
-- arguments (after wrk's `--`):
--   method path rows-file body-template [header-name header-value]...
-- In the body, `{k}` is the request's number in this run (0, 1, 2, ...: unique values, such
-- as a unique sku, without a round trip), and `{1}` to `{9}` are columns of a row of
-- rows-file (`-` for none). Request k takes row k mod R + 1 of the file's R rows, in round
-- floor(k / R); the file's first line gives each column's step per round, so that a column
-- can follow a record's version as the rounds go by (bench/batches.ts). The rows-file
-- lines after the first are whitespace-separated integers.
-- At the end it prints one line, `RESULT {json}`, as scenario.lua does. With the environment
-- variable BENCH_FAILED_ANSWERS set to a file, the first 20 answers of a run that are not
-- 2xx are appended to it, status and body: wrk counts them, this says what they were.
--
-- The body is built per request (scenario.lua formats its requests ahead): a few string
-- substitutions on the load generator's core, far below what the server spends on it.

local method, path, template, headers
local steps, rows = {}, {}
local k = 0

local function integers(line)
  local values = {}
  for word in line:gmatch("%S+") do values[#values + 1] = tonumber(word) end
  return values
end

function init(args)
  method, path = args[1], args[2]
  local file = args[3]
  template = args[4]
  headers = {}
  for i = 5, #args, 2 do headers[args[i]] = args[i + 1] end
  if file ~= "-" then
    local first = true
    for line in io.lines(file) do
      if first then
        steps, first = integers(line), false
      elseif line:match("%S") then
        rows[#rows + 1] = integers(line)
      end
    end
  end
end

local function build(n)
  local row, round
  if #rows > 0 then
    row = rows[n % #rows + 1]
    round = math.floor(n / #rows)
  end
  local body = template:gsub("{(%w)}", function(name)
    if name == "k" then return tostring(n) end
    local column = tonumber(name)
    if column and row and row[column] then
      return string.format("%d", row[column] + (steps[column] or 0) * round)
    end
  end)
  return wrk.format(method, path, headers, body)
end

-- wrk (4.x) calls request() once before the run to count the requests in what it returns
-- (pipelining), and never sends that one: it must not use up request 0, or the product of
-- row 1 would miss its first round, and each later round of it would name a version it is
-- not at (a 412 every #rows requests).
local counted = false

function request()
  if not counted then
    counted = true
    return build(0)
  end
  local n = k
  k = k + 1
  return build(n)
end

local failures_file = os.getenv("BENCH_FAILED_ANSWERS")
if failures_file and failures_file ~= "" then
  local failures = 0
  -- Defined only when asked for: with a `response` function wrk hands every answer to Lua.
  function response(status, headers, body)
    if status < 300 or failures >= 20 then return end
    failures = failures + 1
    local file = io.open(failures_file, "a")
    file:write(method, " ", path, " -> ", status, " ", body or "", "\n")
    file:close()
  end
end

-- The RESULT line both scripts print, from the file beside this one (wrk loads one script).
dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "report.lua")
