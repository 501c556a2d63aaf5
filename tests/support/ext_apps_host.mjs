// npm @modelcontextprotocol/ext-apps (installed by scripts/npm-ext-apps) acting as the host side of MCP Apps
// against one real MCP server, in Node: its TypeScript MCP SDK client (@modelcontextprotocol/client, the
// package's peer) connects to the server declaring the extension; the package's helpers read each tool's
// UI link (getToolUiResourceUri, the visibility checks) and its zod schemas check _meta.ui; the UI resource
// is read; then an AppBridge (the host's bridge, holding that client) and an App (the view's side) talk
// over an in-memory transport pair instead of an iframe's postMessage: the handshake, the tool input and
// result the host sends the view, and a tool call and a resource read the view makes through the bridge
// to the server.  Prints one JSON object.
//   node ext_apps_host.mjs EXT_APPS_DIR (legacy | auto) (stdio COMMAND ARGS... | http URL)
// (auto: the client probes server/discover, so a server of the 2026-07-28 revision is spoken to in it)
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, mode, kind, ...target] = process.argv.slice(2);
const modules = dirname(dirname(pkg));
const load = (p) => import(pathToFileURL(p).href);
const sdk = await load(join(modules, "@modelcontextprotocol/client/dist/index.mjs"));
const bridgeModule = await load(join(pkg, "dist/src/app-bridge.js"));
const { App } = await load(join(pkg, "dist/src/app.js"));
const {
  AppBridge, RESOURCE_MIME_TYPE, McpUiResourceMetaSchema, McpUiToolMetaSchema, buildAllowAttribute,
  getToolUiResourceUri, isToolVisibilityAppOnly, isToolVisibilityModelOnly,
} = bridgeModule;
const EXTENSION = "io.modelcontextprotocol/ui";

let transport;
if (kind === "stdio") {
  const { StdioClientTransport } = await load(join(modules, "@modelcontextprotocol/client/dist/stdio.mjs"));
  transport = new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: "ignore" });
} else {
  transport = new sdk.StreamableHTTPClientTransport(new URL(target[0]));
}
const hostInfo = { name: "ext-apps-host-check", version: "1.0.0" };
const client = new sdk.Client(hostInfo, {
  capabilities: { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  versionNegotiation: { mode },
});
await client.connect(transport);
const check = (schema, value) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};
const out = {
  protocol: client.getNegotiatedProtocolVersion?.() ?? client.getProtocolVersion?.() ?? null,
  serverExtension: client.getServerCapabilities()?.extensions?.[EXTENSION] ?? null,
  mimeType: RESOURCE_MIME_TYPE,
  tools: [],
};
const tools = (await client.listTools()).tools;
for (const tool of tools) {
  const ui = tool._meta?.ui;
  out.tools.push({
    name: tool.name, uri: getToolUiResourceUri(tool) ?? null, appOnly: isToolVisibilityAppOnly(tool),
    modelOnly: isToolVisibilityModelOnly(tool), metaIssues: ui === undefined ? null : check(McpUiToolMetaSchema, ui),
  });
}
const linked = tools.find((t) => getToolUiResourceUri(t));
if (linked) {
  const uri = getToolUiResourceUri(linked);
  const first = (await client.readResource({ uri })).contents[0];
  const meta = first._meta?.ui ?? {};
  out.read = {
    uri: first.uri, mimeType: first.mimeType, text: first.text ?? null, metaIssues: check(McpUiResourceMetaSchema, meta),
    allow: buildAllowAttribute(meta.permissions),
  };
  const [hostSide, viewSide] = sdk.InMemoryTransport.createLinkedPair();
  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, serverResources: {} });
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  const app = new App({ name: "view-check", version: "1.0.0" }, {}, { autoResize: false });
  const input = new Promise((resolve) => { app.ontoolinput = resolve; });
  const result = new Promise((resolve) => { app.ontoolresult = resolve; });
  await bridge.connect(hostSide);
  await app.connect(viewSide);
  await initialized;
  const args = { location: "Paris", days: 2 };
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await client.callTool({ name: linked.name, arguments: args }));
  out.view = {
    hostVersion: app.getHostVersion?.() ?? null,
    input: await input,
    result: await result,
    call: await app.callServerTool({ name: linked.name, arguments: { location: "Paris", days: 1 } }),
    read: (await app.readServerResource({ uri })).contents[0].uri,
  };
  await app.close();
  await bridge.close();
}
console.log(JSON.stringify(out));
await client.close();
