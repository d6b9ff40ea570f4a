// The AWS emulators of the local stack: dynalite (DynamoDB API on LevelDB) and
// fauxqs (SQS and S3 APIs). Both speak the real wire protocols, so the service uses the same AWS SDK
// clients locally as in the cloud. dynalite may run in a process of its own instead (`process`), as
// DynamoDB is a service apart: its memory (LevelDB's, which grows with the data) and its work are then
// not the API process's.
import http from "node:http";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFauxqs } from "fauxqs";

const require = createRequire(import.meta.url);

export interface Emulator {
  endpoint: string;
  /** The emulator's own process, when it runs in one. */
  pid?: number | undefined;
  stop(): Promise<void>;
}

const LOCAL_DIR = dirname(fileURLToPath(import.meta.url));

/** Starts dynalite on 127.0.0.1. With `path` the data lives on disk and survives a restart; with
 * `process` it runs in a child process (stopped with the stack, or on its own when the stack dies). */
export async function startDynamo(options: { port: number; path?: string; process?: boolean }): Promise<Emulator> {
  if (options.process) return startDynamoProcess({ port: options.port, ...(options.path ? { path: options.path } : {}) });
  const dynalite = require("dynalite") as (opts: Record<string, unknown>) => http.Server;
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

async function startDynamoProcess(options: { port: number; path?: string }): Promise<Emulator> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const settings = JSON.stringify({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // The child closes its server on SIGTERM (LevelDB's files are then closed too); the watchdog ends it
  // when the stack dies without stopping it.
  const script = `const server = require("dynalite")(${settings}); server.listen(${options.port}, "127.0.0.1", () => process.stdout.write("listening\\n")); process.on("SIGTERM", () => server.close(() => process.exit(0)));`;
  const child = spawn(process.execPath, ["--import", join(LOCAL_DIR, "parent-watchdog.mjs"), "-e", script], { cwd: LOCAL_DIR, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynalite did not listen on 127.0.0.1:${options.port} within 30 s:\n${output}`)), 30_000);
    void exited.then(() => reject(new Error(`dynalite exited before it listened on 127.0.0.1:${options.port}:\n${output}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!chunk.toString().includes("listening")) return;
      clearTimeout(timer);
      resolve();
    });
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts fauxqs on 127.0.0.1. fauxqs always listens on 0.0.0.0; the local stack must not be reachable
 * from other machines, so the listen call it makes is pinned to loopback for the duration of the start.
 * With `dataDir` queues and messages persist (SQLite); with `s3Dir` blobs are files on disk.
 */
export async function startQueues(options: { port: number; dataDir?: string; s3Dir?: string }): Promise<Emulator> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  if (options.s3Dir) mkdirSync(options.s3Dir, { recursive: true });
  const originalListen = http.Server.prototype.listen;
  http.Server.prototype.listen = function pinnedListen(this: http.Server, ...args: unknown[]) {
    const first = args[0];
    if (first && typeof first === "object" && "host" in first) {
      args[0] = { ...(first as object), host: "127.0.0.1" };
    }
    return (originalListen as (...a: unknown[]) => http.Server).apply(this, args);
  } as typeof originalListen;
  try {
    const server = await startFauxqs({
      port: options.port,
      logger: false,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.s3Dir ? { s3StorageDir: options.s3Dir } : {}),
    });
    return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
  } finally {
    http.Server.prototype.listen = originalListen;
  }
}
