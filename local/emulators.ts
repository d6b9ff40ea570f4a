// The AWS emulators of the local stack, started in-process: dynalite (DynamoDB API on LevelDB) and
// fauxqs (SQS and S3 APIs). Both speak the real wire protocols, so the service uses the same AWS SDK
// clients locally as in the cloud.
import http from "node:http";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { startFauxqs } from "fauxqs";

const require = createRequire(import.meta.url);

export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts dynalite on 127.0.0.1. With `path` the data lives on disk and survives a restart. */
export async function startDynamo(options: { port: number; path?: string }): Promise<Emulator> {
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
