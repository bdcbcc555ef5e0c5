-- Agent search at a fixed rate (see detail.lua): a mix of the explorer's searches.
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "20")
local searches = {
    "/api/v1/agents?limit=20",
    "/api/v1/agents?service=mcp&limit=20",
    "/api/v1/agents?service=a2a&active=true&limit=20",
    "/api/v1/agents?q=weather&limit=20",
    "/api/v1/agents?skill=code/review&limit=20",
    "/api/v1/agents?sort=score&limit=20",
    "/api/v1/agents?sort=score&service=mcp&limit=20",
    "/api/v1/agents?min_score=0.9&limit=20",
    "/api/v1/agents?verification=verified&sort=newest&limit=20",
    "/api/v1/agents?trust_model=crypto-economic&limit=20",
}
math.randomseed(8257)
request = function()
    return wrk.format("GET", searches[math.random(1, #searches)])
end
delay = function() return delay_ms end
