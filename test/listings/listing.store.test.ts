// The listing store's conditions, against the DynamoDB emulator: the first agent record stands, and a
// review or a secret never creates a partial record.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { AgentNotFoundError, deleteReviewEntry, getAgent, getAgentAlias, listAgentsOfCreator, listReviewEntries, putAgent, putAgentAlias, putReviewEntry, setAgentReview, setAgentSecret } from "../../src/listings/listing.store.ts";

let ctx: TestContext;
let world: World | undefined;
const onChainId = () => `0x${randomBytes(32).toString("hex")}`;
const creator = () => `0x${randomBytes(20).toString("hex")}`;

function agent(id: string, owner: string, name: string) {
  return { listing_id: id, agent_id: `${name}-${id.slice(2, 10)}`, creator: owner, name, description: "d", category: "research", metadata_uri: "ipfs://x", review_status: "pending", created_at: new Date().toISOString() };
}

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
});

describe("listing store", () => {
  it("keeps the first agent record of a listing: a second registration changes nothing", async () => {
    const { tables } = ctx.services;
    const id = onChainId();
    const owner = creator();
    expect(await putAgent(tables, id, agent(id, owner, "first"))).toBe(true);
    expect(await putAgent(tables, id, agent(id, owner, "second"))).toBe(false);
    expect(await getAgent(tables, id, { consistent: true })).toMatchObject({ name: "first", creator: owner });
    expect((await listAgentsOfCreator(tables, owner.toUpperCase().replace("0X", "0x"))).map((a) => a.name)).toEqual(["first"]);
  });

  it("refuses a review or a secret for a listing without an agent, and creates no record", async () => {
    const { tables } = ctx.services;
    const id = onChainId();
    await expect(setAgentReview(tables, id, "approved", null, new Date().toISOString())).rejects.toBeInstanceOf(AgentNotFoundError);
    await expect(setAgentSecret(tables, id, "provider_key", { wrapped: "w", blob: "b", setAt: new Date().toISOString() })).rejects.toBeInstanceOf(AgentNotFoundError);
    expect(await getAgent(tables, id, { consistent: true })).toBeNull();
  });

  it("keeps the first approval time through a rejection and a second approval", async () => {
    const { tables } = ctx.services;
    const id = onChainId();
    await putAgent(tables, id, agent(id, creator(), "reviewed"));
    const first = await setAgentReview(tables, id, "approved", null, "2026-03-01T00:00:00.000Z");
    await setAgentReview(tables, id, "rejected", "stale data", "2026-03-02T00:00:00.000Z");
    const again = await setAgentReview(tables, id, "approved", null, "2026-03-03T00:00:00.000Z");
    expect(first.approved_at).toBe("2026-03-01T00:00:00.000Z");
    expect(again).toMatchObject({ approved_at: "2026-03-01T00:00:00.000Z", reviewed_at: "2026-03-03T00:00:00.000Z", review_status: "approved" });
  });

  it("resolves an agent id alias, and queues a review once however often it is put", async () => {
    const { tables } = ctx.services;
    const id = onChainId();
    await putAgentAlias(tables, `alias-${id.slice(2, 10)}`, id);
    expect(await getAgentAlias(tables, `alias-${id.slice(2, 10)}`)).toBe(id);
    expect(await getAgentAlias(tables, "never-registered")).toBeNull();
    const createdAt = "2000-01-01T00:00:00.000Z";
    await putReviewEntry(tables, id, createdAt);
    await putReviewEntry(tables, id, createdAt);
    expect((await listReviewEntries(tables)).filter((e) => e.listing_id === id)).toEqual([{ listing_id: id, created_at: createdAt }]);
    await deleteReviewEntry(tables, id, createdAt);
    expect((await listReviewEntries(tables)).filter((e) => e.listing_id === id)).toEqual([]);
  });
});
