-- Agent detail at a fixed rate: each connection waits `delay_ms` between requests, so
-- connections / (delay + latency) is the offered rate (run.sh: 11 / 22 ms = 500 req/s).
local agents = tonumber(os.getenv("BENCH_AGENTS") or "100000")
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "20")
math.randomseed(8004)
request = function()
    return wrk.format("GET", "/api/v1/agents/" .. math.random(0, agents - 1))
end
delay = function() return delay_ms end
