// Two deliveries of one registration processed at the same moment (a redelivery racing the first), and
// two settings of a listing secret at once: whatever wins, the stored record opens its own sealed blob.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { submitRegistration } from "../../src/registration/submit.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { getJob, type JobResult } from "../../src/registration/jobs.ts";
import { readListingSecret, setProviderKey } from "../../src/listings/secrets.ts";
import { applyAsCreator, reviewCreator } from "../../src/creators/creators.ts";
import { agentKey } from "../../src/listings/listing.store.ts";
import { loadAgentLogic } from "../../src/execution/agent-logic.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let ctx: TestContext;
let world: World | undefined;
let creator: Awaited<ReturnType<typeof fundedAccount>>;

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  creator = await fundedAccount(inject("rpcUrl"));
  await applyAsCreator(ctx.services.tables, creator.address, "Racing Creator");
  await reviewCreator(ctx.services.tables, creator.address, "approve", undefined);
});

describe("concurrent deliveries", () => {
  it("leaves an agent whose logic opens, and a provider key that reads back, whoever wins", async () => {
    const manifest = { name: "racer", category: "coding", description: "d", model: { provider: "provider_a", model: "m" }, system_prompt: "the secret prompt", input_schema: { type: "object" }, output_schema: { type: "string" } };
    const { job_id } = await submitRegistration(ctx.services, creator.address, JSON.stringify(manifest));
    await Promise.all(Array.from({ length: 4 }, () => processRegistrationMessage(ctx.services, JSON.stringify({ job_id }))));
    const job = await getJob(ctx.services.tables, job_id);
    expect(job?.status).toBe("completed");
    const { listing_id } = job!.result as JobResult;
    const record = (await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: agentKey(`0x${listing_id.slice(4)}`), ConsistentRead: true }))).Item as { listing_id: string; logic_blob: string; logic_key: string };
    const logic = await loadAgentLogic(ctx.services, record);
    expect(logic.manifest.system_prompt).toBe("the secret prompt");

    const keys = ["sk-first-0123456789", "sk-second-0123456789", "sk-third-0123456789"];
    await Promise.all(keys.map((key) => setProviderKey(ctx.services, creator.address, listing_id, key)));
    expect(keys).toContain(await readListingSecret(ctx.services, listing_id, "provider_key"));
  });
});
