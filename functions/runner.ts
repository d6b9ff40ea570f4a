// Lambda entry point of the runner: one task run per invocation, in an execution environment of its own
// (tenant isolation, tenant id = run id). The invocation payload is {runId, payload, deadline}; the
// response is streamed back as newline-delimited JSON (src/runtime/runner-core.ts).
import type { Writable } from "node:stream";
import { run } from "../src/runtime/agent.ts";
import { serveRun } from "../src/runtime/runner-core.ts";

/** Provided by Lambda's Node.js runtime as a global. */
declare const awslambda: {
  streamifyResponse(handler: (event: unknown, responseStream: Writable, context: unknown) => Promise<void>): unknown;
};

export const handler = awslambda.streamifyResponse(async (event, responseStream) => {
  const outcome = await serveRun(event, (line) => responseStream.write(line), run);
  responseStream.end();
  // At its deadline the run ends with its environment, as a local sandbox is killed: whatever it left
  // running stops here. The environment belongs to this run's tenant alone, so nothing else is lost.
  if (outcome === "timeout") process.exit(0);
});
