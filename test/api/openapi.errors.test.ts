// The document's error codes are the ones the routes really return: every error rendered during a run
// of refused requests across the API is collected (route, status, code) from app.onError and must be
// among the codes the document declares for that operation and status.
import { beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { renderError } from "../../src/api/errors.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";

type Operation = { responses: Record<string, { $ref?: string; content?: { "application/json": { schema: { allOf: [unknown, { properties: { error: { properties: { code: { enum: string[] } } } } }] } } } }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, Operation["responses"][string]> } };

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let doc: Document;
const seen: { method: string; path: string; status: number; code: string }[] = [];

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  // The code as the client receives it (Hono's own exceptions become codes in renderError).
  app.onError(async (error, c) => {
    const response = renderError(error, c);
    const body = (await response.clone().json()) as { error: { code: string } };
    seen.push({ method: c.req.method.toLowerCase(), path: c.req.path, status: response.status, code: body.error.code });
    return response;
  });
  doc = (await (await app.request("/v1/openapi.json")).json()) as Document;
});

/** The document's operation for a concrete path. */
function operationOf(method: string, path: string): Operation | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(path)) return item[method];
  }
  return undefined;
}

function declaredCodes(operation: Operation, status: number): string[] {
  let response = operation.responses[String(status)];
  if (!response) return [];
  if (response.$ref) response = doc.components.responses[response.$ref.split("/").pop()!]!;
  return response.content!["application/json"].schema.allOf[1].properties.error.properties.code.enum;
}

describe("the document's error codes", () => {
  it("include every code the routes return during a run of refused requests", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { token } = await signIn(app, wallet);
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const unknownListing = `lst_${"0".repeat(64)}`;
    const send = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => app.request(path, { method, ...init });

    // Authentication
    await send("GET", "/v1/keys");
    await send("GET", "/v1/keys", { headers: { authorization: "Bearer svc_test_nope" } });
    await send("GET", "/v1/keys", { headers: { authorization: "Bearer not-a-token" } });
    await send("GET", "/v1/auth/challenge?wallet=0x12");
    await send("POST", "/v1/auth/token", { headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet: wallet.address, challenge: "x", signature: "0x00" }) });
    await send("POST", "/v1/auth/token", { headers: { "content-type": "text/plain" }, body: "hello" });
    await send("POST", "/v1/auth/token", { headers: { "content-type": "application/json" }, body: "{not json" });
    // Keys
    await send("POST", "/v1/keys/challenge", { headers: json, body: JSON.stringify({ label: "" }) });
    await send("POST", "/v1/keys", { headers: json, body: JSON.stringify({ nonce: "0".repeat(32), signature: "0x00" }) });
    await send("DELETE", "/v1/keys/key_nope", { headers: auth });
    await send("DELETE", `/v1/keys/${"k".repeat(80)}`, { headers: auth });
    // Credentials and listings
    await send("GET", "/v1/credentials?limit=0", { headers: auth });
    await send("GET", "/v1/credentials/nope", { headers: auth });
    await send("GET", "/v1/listings?limit=-1", { headers: auth });
    await send("GET", "/v1/listings/nope", { headers: auth });
    await send("GET", `/v1/listings/${unknownListing}`, { headers: auth });
    await send("PUT", `/v1/listings/${unknownListing}/rating`, { headers: json, body: JSON.stringify({ rating: 5 }) });
    await send("PUT", `/v1/listings/${unknownListing}/rating`, { headers: json, body: JSON.stringify({ rating: 9 }) });
    await send("GET", `/v1/listings/${unknownListing}/ratings`, { headers: auth });
    await send("GET", "/v1/listings/nope/ratings", { headers: auth });
    await send("GET", `/v1/listings/${unknownListing}/ratings?cursor=zzz`, { headers: auth });
    // Execution and runs
    for (const path of ["/v1/execute", "/v1/execute/stream"]) {
      await send("POST", path, { headers: json, body: JSON.stringify({ agent_id: "nothing-0badc0de", task: "x" }) });
      await send("POST", path, { headers: json, body: JSON.stringify({ agent_id: "not an id", task: "x" }) });
      await send("POST", path, { headers: { ...json, "idempotency-key": "has spaces" }, body: JSON.stringify({ agent_id: "nothing-0badc0de", task: "x" }) });
      await send("POST", path, { headers: json, body: JSON.stringify({ task: "" }) });
      await send("POST", path, { headers: { ...auth, "content-type": "text/plain" }, body: "run" });
    }
    await send("GET", "/v1/runs/run_nope", { headers: auth });
    await send("GET", "/v1/runs/run_nope/events", { headers: auth });
    await send("POST", "/v1/inputs", { headers: json, body: JSON.stringify({ content: "" }) });
    await send("POST", "/v1/inputs", { headers: json, body: JSON.stringify({ content: "x".repeat(ctx.config.MAX_BODY_BYTES + 10) }) });
    // Creators, agents, jobs, metadata
    await send("GET", "/v1/creators/me", { headers: auth });
    await send("POST", "/v1/creators", { headers: json, body: JSON.stringify({ display_name: "x" }) });
    await send("POST", "/v1/agents", { headers: json, body: "{}" });
    await send("POST", "/v1/agents", { headers: json, body: "[1]" });
    await send("GET", "/v1/jobs/job_nope", { headers: auth });
    await send("GET", "/v1/metadata/nope");
    await send("PUT", `/v1/listings/${unknownListing}/provider-key`, { headers: json, body: JSON.stringify({ provider_key: "sk-test-123456" }) });
    await send("PUT", "/v1/listings/nope/provider-key", { headers: json, body: JSON.stringify({ provider_key: "sk-test-123456" }) });
    await send("POST", `/v1/listings/${unknownListing}/webhook-secret`, { headers: auth });
    // Reviews, by a wallet that is not the authority
    await send("GET", "/v1/reviews/creators", { headers: auth });
    await send("GET", "/v1/reviews/creators?status=nope", { headers: auth });
    await send("POST", `/v1/reviews/creators/${wallet.address}`, { headers: json, body: JSON.stringify({ decision: "approve" }) });
    await send("GET", "/v1/reviews/listings", { headers: auth });
    await send("POST", `/v1/reviews/listings/${unknownListing}`, { headers: json, body: JSON.stringify({ decision: "maybe" }) });

    const undeclared = seen
      .filter(({ method, path, status, code }) => {
        const operation = operationOf(method, path);
        return !operation || !declaredCodes(operation, status).includes(code);
      })
      .map(({ method, path, status, code }) => `${method.toUpperCase()} ${path} ${status} ${code}`);
    expect(undeclared).toEqual([]);
    // The run covers every kind of refusal it means to, not a handful.
    expect(new Set(seen.map((s) => s.code)).size).toBeGreaterThanOrEqual(10);
    expect(seen.length).toBeGreaterThanOrEqual(45);
  });
});
