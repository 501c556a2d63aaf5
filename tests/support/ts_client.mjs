// The official TypeScript SDK client (the copy npm @modelcontextprotocol/server-everything brings,
// installed by scripts/npm-servers) against one server: lists the tools and makes the calls given,
// printing one JSON object.  node ts_client.mjs SDK_DIR CALLS_JSON (stdio COMMAND ARGS... | http URL)
import { pathToFileURL } from "node:url";

const [sdk, callsJson, kind, ...target] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdk}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
let transport;
if (kind === "stdio") {
  const { StdioClientTransport } = await load("client/stdio.js");
  transport = new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: "ignore" });
} else {
  const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(target[0]));
}
const client = new Client({ name: "ts-sdk-check", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
const results = [];
for (const [name, args] of JSON.parse(callsJson)) {
  results.push(await client.callTool({ name, arguments: args }));
}
console.log(JSON.stringify({ protocol: client.getServerVersion(), tools: tools.tools, results }));
await client.close();
