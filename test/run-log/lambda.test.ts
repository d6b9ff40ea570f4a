// The run logger's Lambda entry point: one pass per invocation, within the invocation's time budget.
import { beforeAll, describe, expect, it } from "vitest";
import { useLambdaEnvironment } from "../support/lambda-environment.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { expectLoggedAndVerified, finishedRun, readRun, writeRuns } from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
});
// The entry points boot their services from the environment, as in Lambda.
useLambdaEnvironment(() => ctx.env);

describe("functions/run-logger handler", () => {
  it("starts no batch without time left for it, then logs the pending runs", async () => {
    const { handler } = await import("../../functions/run-logger.ts");
    const runs = Array.from({ length: 12 }, () => finishedRun());
    await writeRuns(ctx.services, runs);

    expect((await handler({}, { getRemainingTimeInMillis: () => 10_000 })).log).toEqual({ batches: 0, runs: 0 });
    expect((await readRun(ctx.services, runs[0]!.run_id))!.log_state).toBe("pending");

    expect((await handler({}, { getRemainingTimeInMillis: () => 60_000 })).log).toEqual({ batches: 1, runs: 12 });
    await expectLoggedAndVerified(ctx.services, runs);
  });
});
