// Drives a running mcpvec MCP server with the official TypeScript SDK over
// Streamable HTTP (/mcp and /mcp/) and legacy SSE (/sse and /sse/). Run by server/node_test.go:
//
//   MCPVEC_BASE=http://127.0.0.1:PORT MCPVEC_EXPECT='{...}' node sdk.test.mjs
//
// MCPVEC_BASE is the server's base URL (endpoints at /mcp and /sse).
// MCPVEC_TOKEN, when set, is sent as a bearer token, and connecting without
// it must fail. MCPVEC_EXPECT is JSON:
//   {"query": "...", "firstId": "...", "fetchTextIncludes": "...",
//    "instructionsInclude": "..."}
// describing what the library behind the server returns.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

const base = process.env.MCPVEC_BASE;
const token = process.env.MCPVEC_TOKEN ?? "";
const expect = JSON.parse(process.env.MCPVEC_EXPECT ?? "{}");
if (!base || !expect.query || !expect.firstId) {
  console.error("usage: MCPVEC_BASE=url MCPVEC_EXPECT='{\"query\":..,\"firstId\":..}' node sdk.test.mjs");
  process.exit(2);
}

// Both endpoint spellings: older OpenAI examples and some clients use /sse/.
const transports = {
  "streamable-http": (headers) =>
    new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers } }),
  "streamable-http /mcp/": (headers) =>
    new StreamableHTTPClientTransport(new URL(base + "/mcp/"), { requestInit: { headers } }),
  sse: (headers) => new SSEClientTransport(new URL(base + "/sse"), { requestInit: { headers } }),
  "sse /sse/": (headers) => new SSEClientTransport(new URL(base + "/sse/"), { requestInit: { headers } }),
};

function authHeaders() {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function connect(kind, headers = authHeaders()) {
  const client = new Client({ name: "mcpvec-node-sdk-test", version: "1.0.0" });
  const transport = transports[kind](headers);
  await client.connect(transport);
  return { client, transport };
}

// The one text item must be the structured object, JSON-encoded.
function assertTextMatchesStructured(result) {
  assert.equal(result.isError ?? false, false, `unexpected isError: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, "structuredContent missing");
  assert.equal(result.content.length, 1, "want exactly one content item");
  assert.equal(result.content[0].type, "text");
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
}

function assertToolError(result, what) {
  assert.equal(result.isError, true, `${what}: want isError, got ${JSON.stringify(result)}`);
  assert.ok(result.content.length > 0 && result.content[0].type === "text", `${what}: want a text message`);
  assert.ok(result.content[0].text.trim().length > 0, `${what}: empty error message`);
}

function assertReadOnlyAnnotations(tool) {
  assert.ok(tool.annotations, `${tool.name}: annotations missing`);
  assert.equal(tool.annotations.readOnlyHint, true, `${tool.name}.readOnlyHint`);
  assert.equal(tool.annotations.destructiveHint, false, `${tool.name}.destructiveHint`);
  assert.equal(tool.annotations.idempotentHint, true, `${tool.name}.idempotentHint`);
  assert.equal(tool.annotations.openWorldHint, false, `${tool.name}.openWorldHint`);
}

for (const kind of Object.keys(transports)) {
  describe(kind, () => {
    let client;
    let transport;
    before(async () => {
      ({ client, transport } = await connect(kind));
    });
    after(async () => {
      await client?.close();
    });

    it("initializes with server info, tools capability and instructions", () => {
      const info = client.getServerVersion();
      assert.equal(info?.name, "mcpvec");
      assert.ok(client.getServerCapabilities()?.tools, "tools capability missing");
      const instructions = client.getInstructions() ?? "";
      assert.ok(instructions.length > 0, "instructions missing");
      if (expect.instructionsInclude) {
        assert.ok(instructions.includes(expect.instructionsInclude), `instructions lack ${expect.instructionsInclude}: ${instructions}`);
      }
      if (kind.startsWith("streamable-http")) {
        assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes(transport.protocolVersion),
          `negotiated ${transport.protocolVersion}`);
      }
    });

    it("lists exactly search and fetch with schemas and annotations", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["fetch", "search"]);
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      for (const tool of tools) {
        assert.ok(tool.description && tool.description.length > 20, `${tool.name}: description too short`);
        assertReadOnlyAnnotations(tool);
        assert.equal(tool.outputSchema?.type, "object", `${tool.name}: outputSchema`);
      }
      const search = byName.search;
      assert.equal(search.inputSchema.properties.query.type, "string");
      assert.deepEqual(search.inputSchema.required, ["query"]);
      const results = search.outputSchema.properties.results;
      assert.equal(results.type, "array");
      for (const f of ["id", "title", "url", "text"]) {
        assert.equal(results.items.properties[f]?.type, "string", `search result field ${f}`);
      }
      const fetch = byName.fetch;
      assert.equal(fetch.inputSchema.properties.id.type, "string");
      assert.deepEqual(fetch.inputSchema.required, ["id"]);
      for (const f of ["id", "title", "text", "url"]) {
        assert.equal(fetch.outputSchema.properties[f]?.type, "string", `fetch field ${f}`);
      }
      assert.equal(fetch.outputSchema.properties.metadata?.type, "object", "fetch field metadata");
    });

    it("searches, and the text item agrees with structuredContent", async () => {
      // listTools above primed the SDK's output-schema validator, so
      // callTool also checks structuredContent against the declared schema.
      await client.listTools();
      const result = await client.callTool({ name: "search", arguments: { query: expect.query } });
      assertTextMatchesStructured(result);
      const { results } = result.structuredContent;
      assert.ok(Array.isArray(results) && results.length > 0, "no results");
      assert.equal(results[0].id, expect.firstId);
      for (const r of results) {
        for (const f of ["id", "title", "url", "text"]) assert.equal(typeof r[f], "string", `result.${f}`);
        assert.ok(r.url === "" || /^https?:\/\//.test(r.url), `url ${r.url}`);
      }
    });

    it("fetches the first result by id", async () => {
      await client.listTools();
      const result = await client.callTool({ name: "fetch", arguments: { id: expect.firstId } });
      assertTextMatchesStructured(result);
      const doc = result.structuredContent;
      assert.equal(doc.id, expect.firstId);
      assert.ok(doc.title.length > 0, "empty title");
      if (expect.fetchTextIncludes) {
        assert.ok(doc.text.includes(expect.fetchTextIncludes), `text lacks ${expect.fetchTextIncludes}`);
      }
      assert.equal(typeof doc.metadata, "object");
      assert.notEqual(doc.metadata, null);
    });

    it("reports what the model can act on as tool errors", async () => {
      assertToolError(await client.callTool({ name: "search", arguments: { query: "" } }), "empty query");
      assertToolError(await client.callTool({ name: "search", arguments: { query: "x".repeat(32001) } }), "query too long");
      assertToolError(await client.callTool({ name: "fetch", arguments: { id: "no-such-id-0000" } }), "unknown id");
    });

    it("rejects an unknown tool as a protocol error", async () => {
      await assert.rejects(client.callTool({ name: "delete_everything", arguments: {} }));
    });
  });
}

if (token) {
  describe("auth", () => {
    for (const kind of Object.keys(transports)) {
      it(`${kind} refuses a client without the token`, async () => {
        await assert.rejects(connect(kind, {}));
      });
      it(`${kind} refuses a client with a wrong token`, async () => {
        await assert.rejects(connect(kind, { Authorization: "Bearer wrong-" + token }));
      });
    }
  });
}
