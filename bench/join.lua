-- wrk script: POST a join with a unique email per request (env WL_PATH, WL_KEY, WL_RUN), and print
-- one JSON line with the summary so bench/run.mjs can read it.
local path = os.getenv("WL_PATH") or "/"
local key = os.getenv("WL_KEY") or ""
local run = os.getenv("WL_RUN") or "0"
local randomSecret = os.getenv("WL_RANDOM_SECRET") == "1"
local counter = 0
local threads = {}

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. key

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
local function randomKey()
  -- same lookup id as WL_KEY, a random 32-character secret
  local s = {}
  for i = 1, 32 do
    local n = math.random(1, #chars)
    s[i] = chars:sub(n, n)
  end
  return key:sub(1, 15) .. table.concat(s)
end

request = function()
  counter = counter + 1
  local body = string.format('{"email":"u%s-%d-%d@bench.example","name":"Bench User %d","source":"wrk"}',
    run, tid or 0, counter, counter)
  local headers = nil
  if randomSecret then
    headers = { ["Authorization"] = "Bearer " .. randomKey() }
  end
  return wrk.format(nil, path, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
