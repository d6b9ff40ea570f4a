// A listing's secrets: the provider key of a declarative agent and the webhook secret of a connected
// one are set by the listing's creator only, stored sealed, and never returned after they are set.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { buildApp } from "../../src/api/app.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { readListingSecret } from "../../src/listings/secrets.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creatorToken: string;
let otherToken: string;
let declarative: string;
let connected: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const base = { category: "coding", description: "Writes tests.", input_schema: { type: "object" }, output_schema: { type: "object" } };

async function register(m: object): Promise<string> {
  const res = await app.request("/v1/agents", { method: "POST", headers: auth(creatorToken), body: JSON.stringify(m) });
  const { job_id } = (await res.json()) as { job_id: string };
  for (const msg of await ctx.services.queue.receive(ctx.config.REGISTRATION_QUEUE_URL, { waitSeconds: 1 })) {
    await processRegistrationMessage(ctx.services, msg.body);
    await ctx.services.queue.delete(ctx.config.REGISTRATION_QUEUE_URL, msg.receiptHandle);
  }
  const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: auth(creatorToken) })).json()) as { status: string; result: { listing_id: string } };
  expect(job.status).toBe("completed");
  return job.result.listing_id;
}

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  const creator = await fundedAccount(inject("rpcUrl"), "1");
  creatorToken = (await signIn(app, creator)).token;
  otherToken = (await signIn(app, await fundedAccount(inject("rpcUrl"), "1"))).token;
  await approveCreator(ctx, app, creator.address, creatorToken);
  declarative = await register({ ...base, name: "test-writer", model: { provider: "provider_b", model: "claude-test" }, system_prompt: "Write tests." });
  connected = await register({ ...base, name: "remote-writer", model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" }, entrypoint_url: "https://agent.example.com/run" });
});

describe("provider key (PUT /v1/listings/{listing_id}/provider-key)", () => {
  const KEY = "sk-test-0123456789abcdefSECRET";

  it("is stored sealed, never returned, and readable by the runtime only", async () => {
    const res = await app.request(`/v1/listings/${declarative}/provider-key`, { method: "PUT", headers: auth(creatorToken), body: JSON.stringify({ provider_key: KEY }) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toMatchObject({ listing_id: declarative, provider_key_set: true });
    const scanned = (await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("listings") }))).Items ?? [];
    const blob = scanned.find((item) => item.listing_id === declarative && item.provider_key_blob)?.provider_key_blob as string;
    expect(blob).toMatch(new RegExp(`^agents/${declarative}/provider_key-[0-9a-f]{24}\\.sealed$`));
    const sealed = await ctx.services.blobs.get(blob);
    expect(Buffer.from(sealed!).toString("latin1")).not.toContain("SECRET");
    const rows = JSON.stringify((await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("listings") }))).Items);
    expect(rows).not.toContain(KEY);
    const me = await (await app.request("/v1/creators/me", { headers: auth(creatorToken) })).text();
    expect(me).not.toContain(KEY);
    expect(await readListingSecret(ctx.services, declarative, "provider_key")).toBe(KEY);
  });

  it("is refused for another creator's listing, a connected agent, and a malformed key", async () => {
    const other = await app.request(`/v1/listings/${declarative}/provider-key`, { method: "PUT", headers: auth(otherToken), body: JSON.stringify({ provider_key: "sk-other-0000000000" }) });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("listing_not_found");
    expect(await readListingSecret(ctx.services, declarative, "provider_key")).toBe(KEY);
    const conn = await app.request(`/v1/listings/${connected}/provider-key`, { method: "PUT", headers: auth(creatorToken), body: JSON.stringify({ provider_key: "sk-conn-0000000000" }) });
    expect(conn.status).toBe(400);
    for (const bad of ["short", "has spaces in it", "x".repeat(600)]) {
      const res = await app.request(`/v1/listings/${declarative}/provider-key`, { method: "PUT", headers: auth(creatorToken), body: JSON.stringify({ provider_key: bad }) });
      expect(res.status).toBe(400);
    }
    const malformed = await app.request(`/v1/listings/lst_nope/provider-key`, { method: "PUT", headers: auth(creatorToken), body: JSON.stringify({ provider_key: "sk-aaaaaaaaaaaa" }) });
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_listing_id");
  });
});

describe("webhook secret (POST /v1/listings/{listing_id}/webhook-secret)", () => {
  it("is created in the Standard Webhooks format, shown once, and replaced on rotation", async () => {
    const first = (await (await app.request(`/v1/listings/${connected}/webhook-secret`, { method: "POST", headers: auth(creatorToken) })).json()) as { webhook_secret: string };
    expect(first.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(first.webhook_secret.slice(6), "base64")).toHaveLength(24);
    expect(await readListingSecret(ctx.services, connected, "webhook_secret")).toBe(first.webhook_secret);
    const second = (await (await app.request(`/v1/listings/${connected}/webhook-secret`, { method: "POST", headers: auth(creatorToken) })).json()) as { webhook_secret: string };
    expect(second.webhook_secret).not.toBe(first.webhook_secret);
    expect(await readListingSecret(ctx.services, connected, "webhook_secret")).toBe(second.webhook_secret);
    const me = await (await app.request("/v1/creators/me", { headers: auth(creatorToken) })).text();
    expect(me).not.toContain(second.webhook_secret.slice(6));
  });

  it("is refused for a declarative agent and for another creator", async () => {
    expect((await app.request(`/v1/listings/${declarative}/webhook-secret`, { method: "POST", headers: auth(creatorToken) })).status).toBe(400);
    expect((await app.request(`/v1/listings/${connected}/webhook-secret`, { method: "POST", headers: auth(otherToken) })).status).toBe(404);
  });
});
