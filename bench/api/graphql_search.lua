-- The agent0 SDK's searchAgents query (SearchAgentsV2 of agent0-sdk 1.7.1's subgraph client: its
-- default where, registrationFile_not: null, a page of 1,000 ordered by updatedAt) at a fixed rate
-- against /subgraphs/agent0 (see detail.lua for the rate).
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "20")
local fields = "id chainId agentId owner operators agentURI agentURIType agentWallet createdAt " ..
    "updatedAt totalFeedback lastActivity registrationFile { id agentId name description image " ..
    "active x402Support supportedTrusts mcpEndpoint mcpVersion a2aEndpoint a2aVersion webEndpoint " ..
    "emailEndpoint hasOASF oasfSkills oasfDomains ens did mcpTools mcpPrompts mcpResources a2aSkills }"
local query = "query SearchAgentsV2($where: Agent_filter, $first: Int!, $skip: Int!, " ..
    "$orderBy: Agent_orderBy!, $orderDirection: OrderDirection!) { agents(where: $where, " ..
    "first: $first, skip: $skip, orderBy: $orderBy, orderDirection: $orderDirection) { " .. fields .. " } }"
local first = tonumber(os.getenv("BENCH_FIRST") or "1000")
local body = '{"query":"' .. query .. '","variables":{"where":{"registrationFile_not":null},' ..
    '"first":' .. first .. ',"skip":0,"orderBy":"updatedAt","orderDirection":"desc"}}'
request = function()
    return wrk.format("POST", "/subgraphs/agent0", {["Content-Type"] = "application/json"}, body)
end
delay = function() return delay_ms end
