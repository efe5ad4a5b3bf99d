// The official MCP TypeScript SDK client through the gateway's whole OAuth flow, driven by OAuthIT.
// usage: node mcp-oauth-check.mjs <base-url> <streamable|sse>
// 401 -> protected resource metadata -> AS metadata -> dynamic registration -> authorize (PKCE S256;
// the gateway auto-approves with a 302 we read ourselves, no browser) -> token -> calls; then the
// access token is spoilt, so the next call's 401 makes the SDK refresh (rotation) and retry.
// Prints one JSON object per line; exit 0 when every step passed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [base, kind] = process.argv.slice(2);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const REDIRECT = "http://127.0.0.1:53682/callback"; // never listened on: the 302 is read, not followed

class HeadlessProvider {
  constructor() { this.saved = {}; this.code = undefined; this.refreshes = 0; }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return { client_name: "taskmesh-oauth-it", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"],
             response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() { return "st-" + Math.random().toString(36).slice(2); }
  clientInformation() { return this.saved.client; }
  saveClientInformation(c) { this.saved.client = c; say({ event: "registered", client_id: c.client_id }); }
  tokens() { return this.saved.tokens; }
  saveTokens(t) {
    if (this.saved.tokens) { this.refreshes++; }
    this.saved.tokens = t;
    say({ event: "tokens", refresh: this.refreshes > 0, scope: t.scope, has_refresh_token: !!t.refresh_token });
  }
  saveCodeVerifier(v) { this.saved.verifier = v; }
  codeVerifier() { return this.saved.verifier; }
  async redirectToAuthorization(url) {
    const r = await fetch(url, { redirect: "manual" });
    const loc = new URL(r.headers.get("location") ?? "about:blank", url);
    if (r.status !== 302 || loc.searchParams.get("error")) throw new Error(`authorize: ${r.status} ${loc.search}`);
    if (loc.searchParams.get("state") !== url.searchParams.get("state")) throw new Error("state not echoed");
    say({ event: "authorized", iss: loc.searchParams.get("iss"), resource: url.searchParams.get("resource"),
          scope: url.searchParams.get("scope"), method: url.searchParams.get("code_challenge_method") });
    this.code = loc.searchParams.get("code");
  }
}

const provider = new HeadlessProvider();
const transportFor = () => kind === "sse"
  ? new SSEClientTransport(new URL(base + "/mcp/sse"), { authProvider: provider })
  : new StreamableHTTPClientTransport(new URL(base + "/mcp"), { authProvider: provider });

try {
  let client = new Client({ name: "taskmesh-oauth-it", version: "1.0.0" });
  let transport = transportFor();
  try {
    await client.connect(transport);
    throw new Error("connected without credentials");
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !provider.code) throw e;
    say({ event: "unauthorized" });
    await transport.finishAuth(provider.code);
  }
  client = new Client({ name: "taskmesh-oauth-it", version: "1.0.0" });
  transport = transportFor();
  await client.connect(transport);
  say({ event: "connected", server: client.getServerVersion() });
  const tools = await client.listTools();
  say({ event: "listed", tools: tools.tools.map((t) => t.name).sort() });
  const call = await client.callTool({ name: "echo", arguments: {} });
  say({ event: "called", result: call });
  // spoil the access token: the next request answers 401, and the SDK must refresh and retry
  provider.saved.tokens = { ...provider.saved.tokens, access_token: "spoilt" };
  let again;
  try {
    again = await client.callTool({ name: "echo", arguments: {} });
  } catch (e) {
    if (!(e instanceof UnauthorizedError) && !String(e?.message).includes("401")) throw e;
    // the SSE transport refreshes but leaves the retry to the caller
    again = await client.callTool({ name: "echo", arguments: {} });
  }
  say({ event: "refreshed-call", refreshes: provider.refreshes, result: again });
  await client.close();
  say({ event: "closed", client_id: provider.saved.client?.client_id });
  process.exit(0);
} catch (e) {
  say({ event: "error", message: String(e && e.message || e) });
  process.exit(1);
}
