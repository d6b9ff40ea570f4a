// The bootstrap of one local sandbox process (see local.ts and docs/design/sandbox.md). Kept tiny on purpose:
// it is all a pre-started sandbox loads before its run arrives. It is CommonJS, not ESM, because the
// heap cap (`--max-old-space-size`) changes V8's flag hash, which makes V8 reject Node's built-in code
// cache: every internal module loaded at startup is then compiled from source, and an ESM main module
// (or an IPC channel) pulls in enough of them to cost ~10-15 ms per process. The entry itself is still
// an ES module, loaded with import().
//
// Protocol (src/protocols/runner.ts), newline-delimited JSON, no IPC channel. The reader and writer
// below are this file's own rather than src/protocols/ndjson.ts: that module is TypeScript and ESM, and
// this file runs in a bare Node process (no TypeScript loader) as CommonJS, for the start-up reason above.
//   fd 0 (parent → child)  one line {runId, entry, payload, deadline}; then end of file
//   fd 3 (child → parent)  {"t":"ready"}                                      once, before the run is read
//                          {"t":"output","delta":"..."}                       any number, in emit order
//                          {"t":"result","ok":true,"output":...,"invokedAt":n} or
//                          {"t":"result","ok":false,"message":"...","invokedAt":n}  once; then exit
// `invokedAt` is `performance.timeOrigin + performance.now()` taken just before the entry's `run` is
// called (epoch milliseconds, the same clock as the parent's). The process serves one run only: it reads
// one message and exits after answering it. End of file before a message (the parent went away or
// closed the pool) makes it exit at once.
"use strict";
const { readSync, writeSync } = require("node:fs");
const { pathToFileURL } = require("node:url");

const OUT = 3;

function write(message) {
  const bytes = Buffer.from(JSON.stringify(message) + "\n", "utf8");
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(OUT, bytes, offset, bytes.length - offset);
}

/** Blocks (the process has nothing else to do) until one line has arrived on fd 0. */
function readRun() {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  const parts = [];
  for (;;) {
    let n;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error && error.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      throw error;
    }
    if (n === 0) return undefined;
    const end = chunk.subarray(0, n).indexOf(10);
    parts.push(Buffer.from(chunk.subarray(0, end >= 0 ? end : n)));
    if (end >= 0) return JSON.parse(Buffer.concat(parts).toString("utf8"));
  }
}

async function serve(message) {
  let invokedAt;
  try {
    const mod = await import(pathToFileURL(message.entry).href);
    if (typeof mod.run !== "function") throw new Error("the entry module does not export a run function");
    const io = Object.freeze({
      runId: message.runId,
      deadline: message.deadline,
      emit: (delta) => write({ t: "output", delta: String(delta) }),
    });
    invokedAt = performance.timeOrigin + performance.now();
    const output = await mod.run(message.payload, io);
    try {
      write({ t: "result", ok: true, output, invokedAt });
    } catch {
      // JSON.stringify threw before anything was written
      write({ t: "result", ok: false, message: "the entry's output is not JSON-serialisable", invokedAt });
    }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    write({ t: "result", ok: false, message: String(text).slice(0, 2000), invokedAt });
  }
  process.exit(0);
}

// Initialise the ES module loader now, while nobody waits, rather than at the entry's import(); a
// pre-started sandbox also loads the entry it will most likely be given (argv[2], the agent runtime),
// so the run's own import() finds it in the module cache. A preload that fails is not fatal: the run's
// import() reports the error. Nothing run-specific exists yet: no payload, no key.
const preload = process.argv[2];
const warmUp = preload ? import(pathToFileURL(preload).href).catch(() => undefined) : import("data:text/javascript,export{}");
warmUp.then(() => {
  // The first use of the `performance` global loads Node's perf_hooks modules (~3 ms); do it now, while
  // nobody waits, rather than when the run's `invokedAt` is stamped.
  performance.now();
  write({ t: "ready" });
  const message = readRun();
  if (!message) process.exit(0);
  void serve(message);
});
