// The worker thread of threaded.ts: hosts the local sandbox pool and relays runs, their output events
// and results, and the pool's state by message. Loaded by Node's own type stripping (erasable syntax only).
import { parentPort, workerData } from "node:worker_threads";
import { createLocalSandboxPool, type LocalSandboxPoolOptions } from "./local.ts";
import type { PoolRequest, PoolWorkerMessage } from "./threaded.ts";

const STATE_INTERVAL_MS = 5;

const port = parentPort!;
const pool = createLocalSandboxPool(workerData as LocalSandboxPoolOptions);
const send = (message: PoolWorkerMessage) => port.postMessage(message);

// The state is reported whenever it changed (polled: the pool has no change events).
let last = "";
const report = () => {
  const stats = pool.stats();
  const idlePids = pool.idlePids();
  const text = JSON.stringify([stats, idlePids]);
  if (text === last) return;
  last = text;
  send({ t: "state", stats, idlePids });
};
const reporter = setInterval(report, STATE_INTERVAL_MS);

port.on("message", (request: PoolRequest) => {
  if (request.t === "close") {
    clearInterval(reporter);
    void pool.close().then(() => send({ t: "closed" }));
    return;
  }
  const { id, spec } = request;
  pool.run(spec, (event) => send({ t: "event", id, event })).then(
    (result) => {
      report();
      send({ t: "result", id, result });
    },
    (error: unknown) => send({ t: "rejected", id, message: error instanceof Error ? error.message : String(error) }),
  );
  report();
});
