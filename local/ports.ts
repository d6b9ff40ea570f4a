// Port helpers for the local stack and the tests: free ports chosen at run time, and a clear refusal
// when a configured port is taken.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The lowest port of the OS's ephemeral range, which outgoing connections and port-0 binds draw from
 * (Linux says it in /proc; 32768 is its default, and below IANA's 49152 elsewhere). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Ports this process has handed out: never handed out twice. */
const handedOut = new Set<number>();
const LOWEST = 20_000;

/**
 * A free port on 127.0.0.1 for a server that listens later (a stack's settings, a child process). It is
 * taken below the OS's ephemeral range: a port the OS picked for a port-0 bind is one it may give any
 * outgoing connection a moment later, so the server's listen would find it taken (EADDRINUSE), while
 * below the range only another such choice can land on it, and a bind checks it is free now.
 */
export async function freePort(): Promise<number> {
  const highest = ephemeralLow() - 1;
  if (highest - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
      if (handedOut.has(port) || (await portInUse(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  return osChosenPort();
}

/** Asks the OS for a free port on 127.0.0.1 (a port-0 bind). */
function osChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("no port"));
      server.close(() => resolve(address.port));
    });
  });
}

/** Resolves true when something already listens on 127.0.0.1:port. */
export async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}
