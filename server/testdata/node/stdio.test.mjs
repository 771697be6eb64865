// Launches a stdio MCP server exactly as Claude Desktop would from a
// claude_desktop_config.json entry, and drives it with the official
// TypeScript SDK client. Run by cmd/mcpvec/stdio_test.go:
//
//   MCPVEC_COMMAND=/abs/mcpvec MCPVEC_ARGS='["serve","--stdio","--db","..."]' \
//   MCPVEC_QUERY='...' MCPVEC_CHILD_ENV='{"K":"V"}' node stdio.test.mjs
//
// It lists the tools, runs a search and a fetch, then times MCPVEC_RUNS
// (default 10) searches. It prints one line "RESULT <json>" with the first
// search's structured content, the tool names, the fetch text's length and
// the search round trips in milliseconds; it exits 1 on a failed check.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const command = process.env.MCPVEC_COMMAND;
const args = JSON.parse(process.env.MCPVEC_ARGS ?? "[]");
const query = process.env.MCPVEC_QUERY;
const runs = Number(process.env.MCPVEC_RUNS ?? "10");
const childEnv = JSON.parse(process.env.MCPVEC_CHILD_ENV ?? "{}");
if (!command || !query) {
  console.error("usage: MCPVEC_COMMAND=... MCPVEC_ARGS='[...]' MCPVEC_QUERY=... node stdio.test.mjs");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env, ...childEnv },
  stderr: "inherit", // the server's log; stdout is the MCP stream only
});
const client = new Client({ name: "mcpvec-stdio-test", version: "1.0.0" });
const started = performance.now();
await client.connect(transport);
const connectMs = performance.now() - started;

const tools = (await client.listTools()).tools.map((t) => t.name).sort();
assert.deepEqual(tools, ["fetch", "search"]);

const first = await client.callTool({ name: "search", arguments: { query } });
assert.equal(first.isError ?? false, false, JSON.stringify(first.content));
const results = first.structuredContent.results;
assert.ok(results.length > 0, "search found nothing");
assert.deepEqual(JSON.parse(first.content[0].text), first.structuredContent);

const fetched = await client.callTool({ name: "fetch", arguments: { id: results[0].id } });
assert.equal(fetched.isError ?? false, false, JSON.stringify(fetched.content));
assert.ok(fetched.structuredContent.text.length > 0, "fetch gave no text");

const times = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const r = await client.callTool({ name: "search", arguments: { query } });
  times.push(performance.now() - t0);
  assert.equal(r.isError ?? false, false);
}
await client.close();
console.log("RESULT " + JSON.stringify({
  tools, search: first.structuredContent, fetchChars: fetched.structuredContent.text.length,
  connectMs, searchMs: times,
}));
