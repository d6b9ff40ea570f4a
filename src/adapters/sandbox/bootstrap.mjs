// The bootstrap of one local sandbox process (see local.ts and docs/sandbox.md). Kept tiny on purpose:
// it is all a pre-started sandbox loads before its run arrives. Protocol over the IPC channel (JSON):
//   child → parent  {t: "ready"}                                  once, when it can take the run
//   parent → child  {t: "run", runId, entry, payload, deadline}   exactly once
//   child → parent  {t: "output", delta}                          any number, in emit order
//   child → parent  {t: "result", ok: true, output, invokedAt}    or
//                   {t: "result", ok: false, message, invokedAt}  once; then the process exits
// `invokedAt` is `performance.timeOrigin + performance.now()` taken just before the entry's `run` is
// called (epoch milliseconds, the same clock as the parent's). The process serves one run only.
const send = process.send.bind(process);

// The parent went away (pool closed, parent crashed): nothing to serve, leave.
process.once("disconnect", () => process.exit(0));

process.once("message", async (message) => {
  let invokedAt;
  const finish = (result) => {
    try {
      send({ t: "result", ...result, invokedAt }, () => process.exit(0));
    } catch {
      send({ t: "result", ok: false, message: "the entry's output is not JSON-serialisable", invokedAt }, () => process.exit(0));
    }
  };
  try {
    if (!message || message.t !== "run") throw new Error("sandbox protocol: expected a run message");
    const mod = await import(message.entry);
    if (typeof mod.run !== "function") throw new Error("the entry module does not export a run function");
    const io = Object.freeze({
      runId: message.runId,
      deadline: message.deadline,
      emit: (delta) => send({ t: "output", delta: String(delta) }),
    });
    invokedAt = performance.timeOrigin + performance.now();
    const output = await mod.run(message.payload, io);
    finish({ ok: true, output });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    finish({ ok: false, message: text.slice(0, 2000) });
  }
});

send({ t: "ready" });
