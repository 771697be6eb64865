// Signs in to `mcpvec serve --oauth` with the official TypeScript SDK's OAuth
// client, the way ChatGPT or Claude would, through a simulated tunnel. Run by
// cmd/mcpvec/auth_test.go:
//
//   MCPVEC_PUBLIC=https://tunnel.example MCPVEC_TUNNEL=http://127.0.0.1:PORT \
//   MCPVEC_PASSPHRASE=... MCPVEC_EXPECT='{"query":..,"fetchTextIncludes":..}' node oauth.test.mjs
//
// Every request for MCPVEC_PUBLIC goes to MCPVEC_TUNNEL (a proxy that sets
// the public Host and X-Forwarded-* headers, like cloudflared). With
// MCPVEC_CLIENT_METADATA_URL the client is named by that client ID metadata
// document instead of registering dynamically.
//
// With MCPVEC_APPROVE_ARGV (a JSON array: the mcpvec command to run, e.g.
// ["mcpvec","auth","approve","--db","lib.db"]) the owner approves by running
// it with the code the page shows, then presses Continue, instead of typing
// the passphrase. With MCPVEC_KEEP_GRANT=1 the client does not revoke its
// grant at the end and prints "ACCESS_TOKEN=<token>" for the caller.
//
// The flow: 401 with resource metadata → discovery → registration (or the
// metadata document) → authorize → the consent page approved with the
// passphrase → token → search and fetch → refresh → revoke → 401.
import { describe, it } from "node:test";
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const pub = process.env.MCPVEC_PUBLIC;
const tunnel = process.env.MCPVEC_TUNNEL;
const passphrase = process.env.MCPVEC_PASSPHRASE;
const metadataUrl = process.env.MCPVEC_CLIENT_METADATA_URL || undefined;
const expect = JSON.parse(process.env.MCPVEC_EXPECT ?? "{}");
if (!pub || !tunnel || !passphrase || !expect.query) {
  console.error("usage: MCPVEC_PUBLIC=.. MCPVEC_TUNNEL=.. MCPVEC_PASSPHRASE=.. MCPVEC_EXPECT=.. node oauth.test.mjs");
  process.exit(2);
}
const approveArgv = process.env.MCPVEC_APPROVE_ARGV ? JSON.parse(process.env.MCPVEC_APPROVE_ARGV) : undefined;
const keepGrant = process.env.MCPVEC_KEEP_GRANT === "1";
const redirectUrl = "http://127.0.0.1:9/callback";
const serverUrl = new URL(pub + "/mcp");

// tunnelFetch sends requests for the public URL through the tunnel.
function tunnelFetch(url, init) {
  const u = new URL(url.toString());
  if (u.origin === new URL(pub).origin) {
    return fetch(tunnel + u.pathname + u.search, init);
  }
  return fetch(u, init);
}

// approveInBrowser plays the owner's browser: open the consent page, type
// the passphrase, and read the code from the redirect back to the client.
async function approveInBrowser(authorizationUrl, state) {
  const page = await tunnelFetch(authorizationUrl, { redirect: "manual" });
  const html = await page.text();
  assert.equal(page.status, 200, `consent page: ${page.status} ${html}`);
  assert.match(html, /search and read every document/);
  assert.match(html, /127\.0\.0\.1:9/, "the page names the redirect host");
  const field = (name) => html.match(new RegExp(`name="${name}" value="([^"]+)"`))[1];
  const action = html.match(/<form method="post" action="([^"]+)"/)[1];
  assert.equal(action, pub + "/oauth/consent");
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const body = new URLSearchParams({ request: field("request"), csrf: field("csrf"), passphrase, action: "approve" });
  if (approveArgv) {
    const code = html.match(/approve(?: --db \S+)? ([A-Z2-9]{4}-[A-Z2-9]{4})/)[1];
    const out = execFileSync(approveArgv[0], [...approveArgv.slice(1), code], { encoding: "utf8" });
    assert.match(out, /Approved "mcpvec SDK test"/);
    body.set("passphrase", "");
    body.set("action", "continue");
  }
  const res = await tunnelFetch(action, { method: "POST", body, headers: { cookie }, redirect: "manual" });
  assert.equal(res.status, 302, `consent: ${res.status} ${await res.text()}`);
  const back = new URL(res.headers.get("location"));
  assert.equal(back.origin + back.pathname, redirectUrl);
  assert.equal(back.searchParams.get("state"), state);
  assert.equal(back.searchParams.get("iss"), pub);
  return back.searchParams.get("code");
}

// Provider keeps everything in memory, like a desktop client would on disk.
class Provider {
  constructor() {
    this.stateValue = "sdk-state-" + Math.random().toString(36).slice(2);
    this.code = undefined;
    this.registered = false;
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadataUrl() { return metadataUrl; }
  get clientMetadata() {
    return {
      client_name: "mcpvec SDK test", redirect_uris: [redirectUrl], token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"],
    };
  }
  state() { return this.stateValue; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; this.registered = true; }
  tokens() { return this.tokenSet; }
  saveTokens(tokens) { this.tokenSet = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(url) {
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.equal(url.searchParams.get("resource"), pub + "/mcp");
    this.code = await approveInBrowser(url, this.stateValue);
  }
}

async function connect(provider) {
  const client = new Client({ name: "mcpvec-oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: tunnelFetch }));
  return client;
}

async function rawStatus(accessToken) {
  const res = await tunnelFetch(serverUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  });
  await res.text();
  return { status: res.status, challenge: res.headers.get("www-authenticate") };
}

describe(`OAuth sign-in ${metadataUrl ? "with a client ID metadata document" : "with dynamic registration"}`, () => {
  const provider = new Provider();
  let firstAccess;

  it("is refused with a 401 that points at the resource metadata", async () => {
    const { status, challenge } = await rawStatus("not-a-token");
    assert.equal(status, 401);
    assert.match(challenge, new RegExp(`resource_metadata="${pub}/.well-known/oauth-protected-resource/mcp"`));
  });

  it("discovers, registers, gets the owner's approval and a token", async () => {
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: tunnelFetch });
    const client = new Client({ name: "mcpvec-oauth-test", version: "1.0.0" });
    await assert.rejects(client.connect(transport), UnauthorizedError);
    assert.ok(provider.code, "the consent page gave a code");
    if (metadataUrl) {
      assert.equal(provider.client.client_id, metadataUrl);
    } else {
      assert.match(provider.client.client_id, /^mcpvec-client-/);
    }
    await transport.finishAuth(provider.code);
    assert.ok(provider.tokenSet.access_token && provider.tokenSet.refresh_token);
    assert.equal(provider.tokenSet.token_type.toLowerCase(), "bearer");
    firstAccess = provider.tokenSet.access_token;
  });

  it("searches and fetches with the token", async () => {
    const client = await connect(provider);
    const found = await client.callTool({ name: "search", arguments: { query: expect.query } });
    assert.equal(found.isError ?? false, false, JSON.stringify(found));
    const first = found.structuredContent.results[0];
    assert.ok(first, "search found nothing");
    const doc = await client.callTool({ name: "fetch", arguments: { id: first.id } });
    assert.ok(doc.structuredContent.text.includes(expect.fetchTextIncludes), JSON.stringify(doc.structuredContent));
    await client.close();
  });

  it("uses the same token over legacy SSE", async () => {
    const client = new Client({ name: "mcpvec-oauth-test", version: "1.0.0" });
    await client.connect(new SSEClientTransport(new URL(pub + "/sse"), { authProvider: provider, fetch: tunnelFetch }));
    const found = await client.callTool({ name: "search", arguments: { query: expect.query } });
    assert.equal(found.isError ?? false, false, JSON.stringify(found));
    await client.close();
  });

  it("refreshes, and the new token works", async () => {
    const before = provider.tokenSet.refresh_token;
    assert.equal(await auth(provider, { serverUrl, fetchFn: tunnelFetch }), "AUTHORIZED");
    assert.notEqual(provider.tokenSet.refresh_token, before, "the refresh token rotated");
    assert.notEqual(provider.tokenSet.access_token, firstAccess);
    const client = await connect(provider);
    const found = await client.callTool({ name: "search", arguments: { query: expect.query } });
    assert.equal(found.isError ?? false, false);
    await client.close();
    if (keepGrant) {
      console.log(`ACCESS_TOKEN=${provider.tokenSet.access_token}`);
    }
  });

  it("revokes, and the tokens stop working on the next request", { skip: keepGrant }, async () => {
    assert.equal((await rawStatus(provider.tokenSet.access_token)).status, 200);
    const res = await tunnelFetch(pub + "/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: provider.tokenSet.refresh_token, client_id: provider.client.client_id }),
    });
    assert.equal(res.status, 200);
    for (const tok of [provider.tokenSet.access_token, firstAccess]) {
      const { status, challenge } = await rawStatus(tok);
      assert.equal(status, 401);
      assert.match(challenge, /error="invalid_token"/);
    }
  });
});
