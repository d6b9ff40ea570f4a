// A real Redis for the tests of the Upstash rate-limit adapter: `redis-server` (the Debian package) on a
// free loopback port, and in front of it a small HTTP bridge speaking Upstash's REST protocol, so
// `@upstash/redis` and `@upstash/ratelimit` run unmodified against it.
//
// The REST protocol, as @upstash/redis 1.39 uses it (node_modules/@upstash/redis/chunk-*.mjs):
// - POST / with a JSON command array ["EVALSHA", sha, nkeys, ...] -> {result} or, status 400, {error};
// - POST /pipeline and /multi-exec with an array of command arrays -> [{result} | {error}, ...];
// - `Authorization: Bearer <token>`; with `Upstash-Encoding: base64` (the client's default) every
//   string in a result is base64, except the status reply "OK".
// Debian's Redis 7.0 rejects the `#!lua flags=allow-key-locking` line that @upstash/ratelimit's
// scripts start with, so the bridge strips it. The library calls EVALSHA with the SHA-1 of the
// original script and falls back to EVAL on NOSCRIPT; the bridge remembers original -> stripped SHAs,
// so after the first EVAL the library's EVALSHA finds the stripped script.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { freePort } from "../../local/ports.ts";

export interface RedisBridge {
  /** The bridge's URL, for `@upstash/redis` (`url`). */
  url: string;
  /** The bearer token the bridge expects. */
  token: string;
  /** The redis-server's own port (RESP). */
  redisPort: number;
  /** Commands forwarded to Redis, by name (EVAL, EVALSHA, ...), for assertions. */
  commandCounts: Map<string, number>;
  /** One command straight to Redis over RESP (no HTTP), the floor for benchmarks. */
  command(args: (string | number)[]): Promise<RespValue>;
  /** Stops redis-server only; the bridge keeps answering, with errors (the "store down" case). */
  stopRedis(): Promise<void>;
  /** Stops the bridge and redis-server; every process started here is gone when it resolves. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// RESP (Redis serialization protocol, version 2): a minimal client over node:net
// ---------------------------------------------------------------------------------------------------

export class RespError extends Error {
  override name = "RespError";
}
export type RespValue = string | number | null | RespError | RespValue[];

/** Parses one RESP value from `buf` at `at`; undefined when the buffer does not hold it all yet. */
function parseResp(buf: Buffer, at: number): { value: RespValue; next: number } | undefined {
  if (at >= buf.length) return undefined;
  const lineEnd = buf.indexOf("\r\n", at);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString("utf8", at + 1, lineEnd);
  const after = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, next: after };
    case "-":
      return { value: new RespError(line), next: after };
    case ":":
      return { value: Number(line), next: after };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next: after };
      if (buf.length < after + length + 2) return undefined;
      return { value: buf.toString("utf8", after, after + length), next: after + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let next = after;
      for (let i = 0; i < count; i++) {
        const item = parseResp(buf, next);
        if (!item) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}

function encodeCommand(args: readonly (string | number)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/** One connection, commands pipelined: Redis answers in order, so replies match a FIFO of waiters.
 * A batch written in one `write` stays contiguous (MULTI ... EXEC is not interleaved). */
class RespConnection {
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private waiters: { resolve: (v: RespValue) => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly port: number) {}

  private open(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: this.port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => socket.destroy(new Error("connect timeout")), 1000);
      socket.once("connect", () => {
        clearTimeout(timer);
        this.socket = socket;
        this.connecting = undefined;
        resolve(socket);
      });
      socket.on("data", (chunk) => this.onData(chunk));
      socket.once("error", (error) => {
        clearTimeout(timer);
        this.connecting = undefined;
        this.fail(error);
        reject(error);
      });
      socket.once("close", () => {
        if (this.socket === socket) this.socket = undefined;
        this.fail(new Error("redis connection closed"));
      });
    });
    return this.connecting;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let at = 0;
    for (;;) {
      const parsed = parseResp(this.buffer, at);
      if (!parsed) break;
      at = parsed.next;
      this.waiters.shift()?.resolve(parsed.value);
    }
    this.buffer = this.buffer.subarray(at);
  }

  private fail(error: Error): void {
    const waiting = this.waiters;
    this.waiters = [];
    this.buffer = Buffer.alloc(0);
    for (const waiter of waiting) waiter.reject(error);
  }

  /** Sends the commands in one write; resolves with their replies in order. */
  async batch(commands: readonly (readonly (string | number)[])[]): Promise<RespValue[]> {
    const socket = await this.open();
    const replies = commands.map(() => new Promise<RespValue>((resolve, reject) => this.waiters.push({ resolve, reject })));
    socket.write(Buffer.concat(commands.map(encodeCommand)));
    return Promise.all(replies);
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// redis-server
// ---------------------------------------------------------------------------------------------------

/** Refuses with what to do when Debian's redis-server is missing. `npm test` installs it first
 * (scripts/bootstrap.sh, with the test tools); a test run never installs anything itself. */
function requireRedisServer(): void {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("redis-server is not installed: `npm test` installs it (scripts/bootstrap.sh), or run `apt-get install redis-server`.");
  }
}

// redis-server runs under a small shell that also watches this process: if the test worker dies
// without calling stop() (kill -9, a crash), the shell stops Redis, so no orphan keeps a port.
const SUPERVISOR = `
redis-server "$@" & r=$!
trap 'kill -TERM $r 2>/dev/null; wait $r; exit 0' TERM INT
while kill -0 "$WATCH_PID" 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.25; done
kill -TERM $r 2>/dev/null; wait $r
`;

async function waitForPing(port: number, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr()}`);
    const conn = new RespConnection(port);
    try {
      const [reply] = await conn.batch([["PING"]]);
      if (reply === "PONG") return;
    } catch {
      // not listening yet
    } finally {
      conn.close();
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 3000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    try {
      // The whole process group: the supervising shell, redis-server and a pending `sleep`.
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      clearTimeout(kill);
      resolve();
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// The Upstash REST bridge
// ---------------------------------------------------------------------------------------------------

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** Removes a `#!lua ...` shebang line (flags Redis 7.0 does not know); keeps the line count. */
function stripShebang(script: string): string {
  return script.startsWith("#!") ? script.replace(/^#![^\n]*/, "") : script;
}

function toArg(value: unknown): string | number {
  if (typeof value === "string" || typeof value === "number") return value;
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

type UpstashReply = { result: unknown } | { error: string };

function encodeResult(value: RespValue, base64: boolean, statusReply: boolean): unknown {
  if (value === null || typeof value === "number") return value;
  if (value instanceof RespError) return null; // errors are handled by the caller
  if (Array.isArray(value)) return value.map((item) => encodeResult(item, base64, false));
  if (!base64 || (statusReply && value === "OK")) return value;
  return Buffer.from(value, "utf8").toString("base64");
}

export async function startRedis(): Promise<RedisBridge> {
  requireRedisServer();
  const redisPort = await freePort();
  let redisStderr = "";
  const child = spawn(
    "sh",
    ["-c", SUPERVISOR, "sh", "--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning"],
    { stdio: ["ignore", "ignore", "pipe"], detached: true, env: { ...process.env, WATCH_PID: String(process.pid) } },
  );
  child.stderr!.on("data", (chunk: Buffer) => {
    redisStderr = (redisStderr + chunk.toString()).slice(-2000);
  });
  const exitHook = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.once("exit", exitHook);
  try {
    await waitForPing(redisPort, child, () => redisStderr, 10_000);
  } catch (error) {
    await stopProcess(child);
    process.removeListener("exit", exitHook);
    throw error;
  }

  const token = randomBytes(16).toString("hex");
  const redis = new RespConnection(redisPort);
  const commandCounts = new Map<string, number>();
  /** SHA-1 of a script as the client sent it -> SHA-1 of the script Redis holds. */
  const shaMap = new Map<string, string>();

  /** Rewrites one command for Redis 7.0 and records the script SHAs. Returns the command to send and,
   * for SCRIPT LOAD, the SHA the client expects back. */
  const rewrite = (command: unknown[]): { args: (string | number)[]; replySha?: string } => {
    const args = command.map(toArg);
    const name = String(args[0] ?? "").toUpperCase();
    commandCounts.set(name, (commandCounts.get(name) ?? 0) + 1);
    if ((name === "EVAL" || name === "EVAL_RO") && typeof args[1] === "string") {
      const stripped = stripShebang(args[1]);
      if (stripped !== args[1]) shaMap.set(sha1(args[1]), sha1(stripped));
      args[1] = stripped;
    } else if ((name === "EVALSHA" || name === "EVALSHA_RO") && args[1] !== undefined) {
      const sha = String(args[1]).toLowerCase();
      args[1] = shaMap.get(sha) ?? sha;
    } else if (name === "SCRIPT" && String(args[1]).toUpperCase() === "LOAD" && typeof args[2] === "string") {
      const original = args[2];
      const stripped = stripShebang(original);
      if (stripped !== original) shaMap.set(sha1(original), sha1(stripped));
      args[2] = stripped;
      return { args, replySha: sha1(original) };
    } else if (name === "SCRIPT" && String(args[1]).toUpperCase() === "EXISTS") {
      for (let i = 2; i < args.length; i++) args[i] = shaMap.get(String(args[i]).toLowerCase()) ?? args[i]!;
    }
    return { args };
  };

  const toReply = (value: RespValue, base64: boolean, replySha?: string): UpstashReply => {
    if (value instanceof RespError) return { error: value.message };
    if (replySha !== undefined && typeof value === "string") return { result: encodeResult(replySha, base64, false) };
    return { result: encodeResult(value, base64, true) };
  };

  const isCommand = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0;

  const handle = async (path: string, body: unknown, base64: boolean): Promise<{ status: number; payload: unknown }> => {
    if (path === "/" || path === "") {
      if (!isCommand(body)) return { status: 400, payload: { error: "ERR body must be a command array" } };
      const { args, replySha } = rewrite(body);
      const [value] = await redis.batch([args]);
      const reply = toReply(value!, base64, replySha);
      return { status: "error" in reply ? 400 : 200, payload: reply };
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body) || !body.every(isCommand)) return { status: 400, payload: { error: "ERR body must be an array of command arrays" } };
      const rewritten = body.map(rewrite);
      if (path === "/pipeline") {
        const values = await redis.batch(rewritten.map((r) => r.args));
        return { status: 200, payload: values.map((v, i) => toReply(v, base64, rewritten[i]!.replySha)) };
      }
      const values = await redis.batch([["MULTI"], ...rewritten.map((r) => r.args), ["EXEC"]]);
      const exec = values[values.length - 1]!;
      if (exec instanceof RespError || !Array.isArray(exec)) {
        const queued = values.slice(1, -1).find((v) => v instanceof RespError);
        const message = queued instanceof RespError ? queued.message : exec instanceof RespError ? exec.message : "ERR transaction aborted";
        return { status: 400, payload: { error: message } };
      }
      return { status: 200, payload: exec.map((v, i) => toReply(v, base64, rewritten[i]!.replySha)) };
    }
    return { status: 404, payload: { error: `ERR unknown path ${path}` } };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== "POST") return send(405, { error: "ERR only POST is supported" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(400, { error: "ERR malformed JSON body" });
      }
      const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "") || "/";
      handle(path, body, base64).then(
        ({ status, payload }) => send(status, payload),
        (error: Error) => send(500, { error: `ERR redis unreachable: ${error.message}` }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("bridge has no port");

  let stopped = false;
  const stopRedis = async () => {
    redis.close();
    await stopProcess(child);
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    token,
    redisPort,
    commandCounts,
    command: async (args) => (await redis.batch([args]))[0]!,
    stopRedis,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stopRedis();
      process.removeListener("exit", exitHook);
    },
  };
}
