// A real MCP client (npm @modelcontextprotocol/sdk, Client + StreamableHTTPClientTransport)
// against a running `credence node` (docs/api.md). Run by tests/cli/node_cli_test.cpp:
//
//   node tests/mcp/mcp_client_test.mjs <node url> <agent id with feedback>
//
// Connects to <url>/mcp, lists the tools, calls each one and checks the answers; exits 0 when
// every check passed, 1 with one line per failure otherwise.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [baseUrl, agentId] = process.argv.slice(2);
if (!baseUrl || !agentId) {
  console.error("usage: mcp_client_test.mjs <node url> <agent id>");
  process.exit(2);
}

const failures = [];
function check(condition, what) {
  if (!condition) failures.push(what);
}

const client = new Client({ name: "credence-mcp-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl));
await client.connect(transport);
check(typeof transport.sessionId === "string" && transport.sessionId.length > 0,
      "the server issued a session id");
check(client.getServerVersion()?.name === "credence", "serverInfo.name is credence");
check(client.getServerCapabilities()?.tools !== undefined, "the server offers tools");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const expected = ["get_agent", "get_reputation", "search_agents", "search_tools", "trace_run",
                  "verify_tool"];
check(JSON.stringify(names) === JSON.stringify(expected), `tools/list: ${names.join(",")}`);
for (const t of tools) {
  check(t.inputSchema?.type === "object", `${t.name}: inputSchema is an object schema`);
}

// search_agents: the agent is listed.
const search = await client.callTool({ name: "search_agents", arguments: { limit: 10 } });
check(!search.isError, `search_agents failed: ${search.content?.[0]?.text}`);
const items = search.structuredContent?.items ?? [];
check(items.some((a) => a.agent_id === agentId), `search_agents lists agent ${agentId}`);
check(JSON.parse(search.content[0].text).items.length === items.length,
      "search_agents: text content and structuredContent agree");

// get_agent: the detail.
const agent = await client.callTool({ name: "get_agent", arguments: { agent_id: agentId } });
check(!agent.isError, `get_agent failed: ${agent.content?.[0]?.text}`);
check(agent.structuredContent?.agent_id === agentId, "get_agent answers the agent asked for");

// get_reputation: a trust score from the node's trust engine, with its explanation.
const rep = await client.callTool({ name: "get_reputation", arguments: { agent_id: agentId } });
check(!rep.isError, `get_reputation failed: ${rep.content?.[0]?.text}`);
const score = rep.structuredContent?.score;
check(score && typeof score.score === "number" && score.score > 0 && score.score < 1,
      `get_reputation has a score in (0, 1): ${JSON.stringify(score)}`);
check(rep.structuredContent?.feedback?.count >= 1, "get_reputation counts the feedback");

// An unknown agent is a tool error (isError), not a protocol error.
const missing = await client.callTool({ name: "get_agent", arguments: { agent_id: "987654321" } });
check(missing.isError === true, "get_agent of an unknown agent is isError");

// search_tools, verify_tool, trace_run: answered by the REST routes (none registered here).
const toolsList = await client.callTool({ name: "search_tools", arguments: {} });
check(!toolsList.isError && Array.isArray(toolsList.structuredContent?.items),
      `search_tools answers a list: ${toolsList.content?.[0]?.text}`);
const tool = await client.callTool({ name: "verify_tool", arguments: { tool_id: "424242" } });
check(tool.isError === true, "verify_tool of an unknown tool is isError");
const run = await client.callTool({
  name: "trace_run",
  arguments: { run_id: "0x" + "ab".repeat(32) },
});
check(run.isError === true, "trace_run of an unknown run is isError");

// Bad arguments are a protocol error (-32602), which the SDK raises.
let rejected = false;
try {
  await client.callTool({ name: "get_agent", arguments: {} });
} catch (e) {
  rejected = String(e?.code ?? e).includes("-32602") || e?.code === -32602;
}
check(rejected, "get_agent without agent_id is rejected with -32602");

await client.ping();
await transport.terminateSession();
await client.close();

if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log(`ok: ${tools.length} tools, agent ${agentId} score ${score.score}`);
