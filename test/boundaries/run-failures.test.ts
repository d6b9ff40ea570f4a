// Run failure codes, typed end to end from the vocabulary (RUN_FAILURE_CODES): the agent ports and the
// run records take a RunFailureCode (tsc refuses any other word), the API's Run and RunDetail name them
// as an enum (the RunFailure component), and the SDK's types are generated from that document.
import { describe, expect, expectTypeOf, it } from "vitest";
import { RUN_FAILURE_CODES, RUN_FAILURE_MEANINGS, type RunFailureCode } from "@agent-rental/core/vocabulary";
import type { RunError, RunFailureCode as SdkRunFailureCode } from "@agent-rental/sdk";
import { openApiDocument } from "../../src/api/openapi-document.ts";
import type { AgentOutcome } from "../../src/execution/agents/port.ts";
import type { RunFailure } from "../../src/execution/runs/run.ts";

type Schema = { $ref?: string; properties?: Record<string, Schema>; enum?: string[]; anyOf?: Schema[] };

describe("run failure codes", () => {
  it("are one type from the vocabulary to the agent ports, the run record and the SDK", () => {
    expectTypeOf<SdkRunFailureCode>().toEqualTypeOf<RunFailureCode>();
    expectTypeOf<RunError["code"]>().toEqualTypeOf<RunFailureCode>();
    expectTypeOf<RunFailure["code"]>().toEqualTypeOf<RunFailureCode>();
    expectTypeOf<Extract<AgentOutcome, { status: "failed" }>["error"]["code"]>().toEqualTypeOf<RunFailureCode>();
    // A word outside the vocabulary is not a failure code.
    expectTypeOf<"run_failed">().not.toMatchTypeOf<RunFailureCode>();
  });

  it("each has a meaning, and the API document lists exactly them for the Run's and the RunDetail's error", async () => {
    expect(Object.keys(RUN_FAILURE_MEANINGS)).toEqual([...RUN_FAILURE_CODES]);
    const document = (await openApiDocument()) as { components: { schemas: Record<string, Schema> } };
    const { schemas } = document.components;
    expect(schemas.RunFailure?.properties?.code?.enum).toEqual([...RUN_FAILURE_CODES]);
    for (const name of ["Run", "RunDetail"]) expect(schemas[name]?.properties?.error?.$ref, name).toBe("#/components/schemas/RunFailure");
  });
});
