// The host side of an MCP Bundle, by the official library (npm @anthropic-ai/mcpb, the code desktop
// hosts use): reads {manifest, extensionPath, userConfig} as JSON on stdin and prints
// {config, missing}: the server configuration getMcpConfigForManifest substitutes (null when the host
// would not start the server) and whether hasRequiredConfigMissing says a required value is missing.
// Usage: node mcpb_host.mjs <path of @anthropic-ai/mcpb/dist/index.js>
import { pathToFileURL } from "node:url";

const mcpb = await import(pathToFileURL(process.argv[2]).href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { manifest, extensionPath, userConfig } = JSON.parse(input);
const config = await mcpb.getMcpConfigForManifest({
  manifest, extensionPath, userConfig, systemDirs: {}, pathSeparator: "/",
  logger: { warn: (m) => process.stderr.write(`${m}\n`), log() {}, error() {} },
});
const missing = mcpb.hasRequiredConfigMissing({ manifest, userConfig });
process.stdout.write(JSON.stringify({ config: config ?? null, missing }));
