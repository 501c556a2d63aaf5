// The weather tool with the official TypeScript SDK (@modelcontextprotocol/sdk, installed by
// scripts/npm-servers), served the way its documentation serves a stateless server: one server and
// one StreamableHTTPServerTransport per POST (sessionIdGenerator undefined, JSON responses), on
// node:http, 127.0.0.1 only.  Run: node bench/ts_sdk_server.cjs NPM_PREFIX PORT
"use strict";
const http = require("node:http");
const { createRequire } = require("node:module");
const path = require("node:path");

const [prefix, port] = process.argv.slice(2);
const req = createRequire(path.join(prefix, "package.json"));
const { McpServer } = req("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = req("@modelcontextprotocol/sdk/server/streamableHttp.js");
const z = req("zod");

const Unit = z.enum(["celsius", "fahrenheit"]);

function build() {
  const server = new McpServer({ name: "weather", version: "1.2.0" });
  server.registerTool(
    "get_weather",
    {
      description: "Current weather for a location.",
      annotations: { readOnlyHint: true },
      inputSchema: { location: z.string().min(1), unit: Unit.optional() },
      outputSchema: { temperature: z.number(), conditions: z.string(), unit: Unit },
    },
    async ({ unit }) => {
      const out = { temperature: 18.0, conditions: "sunny", unit: unit ?? "celsius" };
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  return server;
}

http
  .createServer((request, response) => {
    if (request.method !== "POST" || request.url !== "/mcp") {
      response.writeHead(405).end();
      return;
    }
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const server = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString()));
    });
  })
  .listen(Number(port), "127.0.0.1");
