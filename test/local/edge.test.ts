// The stack users start: `npm start`, exactly as the README says (free ports, a data folder of its own),
// driven over HTTP and raw sockets at the one origin it serves, the dashboard in front of the API:
// - what is not a dashboard page or file is the API's answer, in the envelope with the rate-limit
//   headers (GET /v2/listings, other methods, a page's path asked for as JSON), and a preflight carries
//   the rate-limit headers too; the dashboard's pages still load in a browser's terms;
// - a chunked body with chunk size `zz` is refused 400 by the server and logged as that, a client that
//   hangs up mid-body as 499, and /v1/health counts no server error for either;
// - 150 wrong API keys with a rotating X-Forwarded-For run into 429: the bucket is the socket's address;
// - a TRUSTED_PROXIES setting that is no address, or a DYNAMODB_PROCESS that is neither true nor false,
//   stops the start before anything runs;
// - the DynamoDB emulator runs in a process of its own, a child of the stack's (a stack killed outright
//   takes it along: test/local/recovery.test.ts waits for the killed stack's whole group to end).
// Stopped by its process id at the end, leaving no process behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import { parseResponse, rawExchange, writeIfOpen } from "../support/raw-http.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stack-edge-"));
const started: ChildProcess[] = [];
let info: StackInfo;
/** Everything the stack printed so far (its log lines among it). */
let stackOutput: () => string = () => "";

async function ports(): Promise<Record<string, string>> {
  return { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), AWS_EMULATOR_PORT: String(await freePort()) };
}

function npmStart(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const child = spawn("npm", ["start", "--silent"], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  started.push(child);
  let text = "";
  child.stdout!.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => text };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  // Access lines are info: the stack's own log is what an operator reads.
  const stack = npmStart({ ...(await ports()), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "info" });
  let exited = false;
  void stack.exited.then(() => (exited = true));
  await until("npm start to be ready", () => {
    if (exited) throw new Error(`npm start exited before it was ready:\n${stack.output()}`);
    return existsSync(join(dataDir, "stack.json"));
  }, 240_000, 100);
  info = JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8")) as StackInfo;
  stackOutput = stack.output;
}, 300_000);

afterAll(async () => {
  const [first] = started;
  if (info && first && groupAlive(first.pid!)) {
    process.kill(info.pid, "SIGTERM");
    await until("the stack to stop", () => !groupAlive(first.pid!), 30_000).catch(() => undefined);
  }
  for (const child of started) if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

type Envelope = { error: { code: string; status: number; request_id: string } };

async function expectEnvelope(res: Response, status: number, code: string): Promise<Envelope> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as Envelope;
  expect(body.error).toMatchObject({ code, status });
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(res.headers.get(name), name).toMatch(/^\d+$/);
  return body;
}

/** The stack's access lines (JSON lines with message "request") printed so far. */
function accessLines(): (Record<string, unknown> & { request_id: string; status: number })[] {
  return stackOutput()
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"message":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { request_id: string; status: number });
}

describe("npm start's origin", () => {
  it("answers what is not the dashboard's in the API's envelope, preflights with rate headers, and the dashboard's pages to browsers", async () => {
    const url = info.api_url;
    await expectEnvelope(await fetch(`${url}/v2/listings`), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/v2/listings`, { headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/`, { method: "POST", headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/rentals`, { headers: { accept: "application/json" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/assets/no-such-file.js`), 404, "not_found");
    const preflight = await fetch(`${url}/v1/execute`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("x-ratelimit-limit")).toBe("100");
    expect(preflight.headers.get("x-ratelimit-remaining")).toBe("100");
    // The built dashboard is still the page at its routes.
    for (const page of ["", "rentals", "listings/lst_x"]) {
      const res = await fetch(`${info.dashboard_url}${page}`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
      expect(res.status, page).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it("logs a body the parser refused as the server's 400 and a client that hung up mid-body as 499, and counts no server error", async () => {
    const url = info.api_url;
    const refused = await rawExchange(url, (socket) => {
      writeIfOpen(socket, "POST /v1/auth/token HTTP/1.1\r\nHost: stack\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
    });
    const answer = parseResponse(refused.text);
    expect(answer.status).toBe(400);
    const requestId = (JSON.parse(answer.body) as Envelope).error.request_id;
    await until("the refused request's access line", () => accessLines().some((line) => line.request_id === requestId), 10_000);
    expect(accessLines().find((line) => line.request_id === requestId)).toMatchObject({ route: "/v1/auth/token", status: 400, error_code: "invalid_request", refused_by: "http_server" });

    const before = accessLines().length;
    await rawExchange(url, (socket) => {
      writeIfOpen(socket, 'POST /v1/auth/token HTTP/1.1\r\nHost: stack\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"wallet":');
      setTimeout(() => socket.resetAndDestroy(), 100);
    });
    await until("the abandoned request's access line", () => accessLines().slice(before).some((line) => line.route === "/v1/auth/token"), 10_000);
    expect(accessLines().slice(before).find((line) => line.route === "/v1/auth/token")).toMatchObject({ status: 499, error_code: "client_closed_request" });

    expect(stackOutput()).not.toContain('"request failed"');
    expect(accessLines().filter((line) => line.status >= 500)).toEqual([]);
    const health = (await (await fetch(`${url}/v1/health`)).json()) as { metrics: { requests: { by_status_class: Record<string, number> } } };
    expect(health.metrics.requests.by_status_class["5xx"]).toBeUndefined();
  });

  it("keys public callers by the socket: 150 wrong API keys with a rotating X-Forwarded-For get 100 × 401, then 429", async () => {
    // Windows are aligned to the minute: start the burst early in one, so all of it falls in it.
    await until("the start of a minute", () => Date.now() % 60_000 < 40_000, 60_000, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await fetch(`${info.api_url}/v1/keys`, { headers: { authorization: `Bearer svc_test_${randomBytes(16).toString("hex")}`, "x-forwarded-for": `203.0.113.${(i % 250) + 1}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    // Requests of the earlier tests in this window count in the same bucket: 401s until it is spent.
    const firstRefusal = statuses.indexOf(429);
    expect(firstRefusal).toBeGreaterThan(0);
    expect(firstRefusal).toBeLessThanOrEqual(100);
    expect(statuses.slice(0, firstRefusal).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(firstRefusal).every((status) => status === 429)).toBe(true);
  });

  it("runs the DynamoDB emulator in a process of its own, a child of the stack's", () => {
    const children = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(info.pid);
      } catch {
        return false;
      }
    });
    const dynalite = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes('require("dynalite")'));
    expect(dynalite).toHaveLength(1);
  });

  it.each([
    ["TRUSTED_PROXIES", "that is no address or range", "10.0.0.0/8, proxy.internal"],
    ["DYNAMODB_PROCESS", "other than true or false", "yes"],
  ])("refuses a %s setting %s before anything starts", async (name, _what, value) => {
    const otherDir = mkdtempSync(join(tmpdir(), "stack-edge-bad-"));
    try {
      const bad = npmStart({ ...(await ports()), LOCAL_DATA_DIR: otherDir, [name]: value });
      expect(await bad.exited).not.toBe(0);
      expect(bad.output()).toContain(`Invalid setting: ${name}`);
      expect(existsSync(join(otherDir, "stack.json"))).toBe(false);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 120_000);
});
