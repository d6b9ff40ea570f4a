// Health counts the deferred settlements waiting for the settlement pass, and probes the tables.
import { beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { checkHealth } from "../../src/health.ts";
import { markSettlementPending } from "../../src/execution/money/settlement.ts";
import { newRunId } from "../../src/execution/runs/run.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  // No settler: its pass would take up the deferred settlements this suite counts (their runs do not exist).
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

describe("health", () => {
  it("counts every deferred settlement, and reports the tables reachable", async () => {
    const before = await checkHealth(ctx.services);
    expect(before.settlements).toEqual({ pending: 0, alarms: [] });
    for (let i = 0; i < 3; i++) await markSettlementPending(ctx.services, newRunId());
    const after = await checkHealth(ctx.services);
    expect(after.settlements).toEqual({ pending: 3, alarms: [] });
    expect(after.checks.tables).toBe(true);
  });
});
