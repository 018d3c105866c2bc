-- wrk script: POST a join with a unique email per request (env WL_PATH, WL_KEY, WL_RUN), and print
-- one JSON line with the summary so bench/run.mjs can read it. With WL_REFS (a file of referral codes,
-- one a line) and WL_REF_EVERY = N, every Nth join carries a `ref` from that file (bench/lifecycle.mjs).
local path = os.getenv("WL_PATH") or "/"
local key = os.getenv("WL_KEY") or ""
local run = os.getenv("WL_RUN") or "0"
local randomSecret = os.getenv("WL_RANDOM_SECRET") == "1"
local refEvery = tonumber(os.getenv("WL_REF_EVERY") or "0") or 0
local refs = {}
if refEvery > 0 and os.getenv("WL_REFS") then
  for line in io.lines(os.getenv("WL_REFS")) do
    if #line > 0 then table.insert(refs, line) end
  end
end
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
  local ref = ""
  if refEvery > 0 and #refs > 0 and counter % refEvery == 0 then
    ref = string.format(',"ref":"%s"', refs[(counter * 7919) % #refs + 1])
  end
  local body = string.format('{"email":"u%s-%d-%d@bench.example","name":"Bench User %d","source":"wrk"%s}',
    run, tid or 0, counter, counter, ref)
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
