// The settler's Lambda entry point: each invocation runs until its deadline less the time it keeps to
// wind down; the run log's batches go out through it while it runs, and none starts without time left.
import { beforeAll, describe, expect, it } from "vitest";
import { useLambdaEnvironment } from "../support/lambda-environment.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { expectLoggedAndVerified, finishedRun, readRun, writeRuns } from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});
// The entry points boot their services from the environment, as in Lambda.
useLambdaEnvironment(() => ctx.env);

/** The time the settler keeps back on the local chain (automine: blocks counted as a second). */
const WIND_DOWN_MS = 10_000;

describe("functions/settler handler", () => {
  it("starts no batch without time left for it, then logs the pending runs and returns by its deadline", async () => {
    const { handler } = await import("../../functions/settler.ts");
    const runs = Array.from({ length: 12 }, () => finishedRun());
    await writeRuns(ctx.services, runs);

    const short = await handler({}, { getRemainingTimeInMillis: () => WIND_DOWN_MS + 1_000 });
    expect(short.charges.leased).toBe(true);
    expect(short.log).toEqual({ batches: 0, runs: 0 });
    expect((await readRun(ctx.services, runs[0]!.run_id))!.log_state).toBe("pending");

    const started = Date.now();
    const long = await handler({}, { getRemainingTimeInMillis: () => WIND_DOWN_MS + 8_000 });
    expect(long.log).toEqual({ batches: 1, runs: 12 });
    // It ran until its deadline (it takes charges until then), and not past the invocation's time.
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);
    expect(Date.now() - started).toBeLessThan(WIND_DOWN_MS + 8_000);
    await expectLoggedAndVerified(ctx.services, runs);
  }, 40_000);
});
