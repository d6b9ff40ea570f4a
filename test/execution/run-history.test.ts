// GET /v1/runs: a renter's runs of a listing, newest first, a page at a time, each as GET
// /v1/runs/{run_id} gives it but without its output; made by any way in (execute, its stream, MCP,
// A2A: every admission records the run). Another wallet's runs are never listed; a listing never run
// is an empty list; bad input answers in the envelope with the rate-limit headers. Over real HTTP, on
// the real chain (a per-query price above 2^53 wei, read exactly).
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../sdk/src/json.ts";
import { AgentRentalClient } from "../../sdk/src/index.ts";
import { until } from "../support/until.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";

let world: World;
let agent: PublishedAgent;
let other: PublishedAgent;
let renter: Renter;
let stranger: Renter;
/** The renter's runs of `agent`, in the order made. */
const made: string[] = [];

const PRICE_ETH = "0.0123456789";
const PRICE_WEI = 12_345_678_900_000_000n;

beforeAll(async () => {
  world = await startWorld({ agent: true });
  agent = await world.publishConnected("history", { rental: "per_query", price: PRICE_ETH, handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "down") : call.output({ findings: [call.task] })) });
  other = await world.publishConnected("history-other", { rental: "one_time" });
  [renter, stranger] = await Promise.all([world.renter(), world.renter()]);
  await world.rent(renter.account, agent, { deposit: PRICE_WEI * 10n });
  await world.rent(renter.account, other);
  await world.rent(stranger.account, agent, { deposit: PRICE_WEI * 2n });
  for (const task of ["first", "fail second", "third", "fourth", "fifth"]) {
    const res = await execute(renter, agent, task);
    made.push(((await res.json()) as { run_id: string }).run_id);
  }
  await execute(renter, other, "elsewhere");
  await execute(stranger, agent, "not yours");
}, 180_000);

afterAll(() => world?.close());

function execute(who: Renter, target: PublishedAgent, task: string): Promise<Response> {
  return fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${who.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: target.agent_id, task }) });
}

function list(query: string, who: Renter = renter): Promise<Response> {
  return fetch(`${world.url}/v1/runs?${query}`, { headers: { authorization: `Bearer ${who.key}` } });
}

interface Listed {
  listing_id: string;
  runs: (Record<string, unknown> & { run_id: string; status: string; cost_wei: bigint })[];
  next_cursor: string | null;
}

async function page(query: string, who: Renter = renter): Promise<Listed> {
  const res = await list(query, who);
  expect(res.status).toBe(200);
  return parseJson<Listed>(await res.text());
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  const body = (await res.json()) as { error: { code: string; status: number; message: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.message.length).toBeGreaterThan(0);
}

describe("GET /v1/runs", () => {
  it("lists the caller's runs of a listing newest first, each as GET /v1/runs/{run_id} gives it without its output, cost_wei exact", async () => {
    const all = await page(`listing_id=${agent.listing_id}`);
    expect(all.listing_id).toBe(agent.listing_id);
    expect(all.runs.map((r) => r.run_id)).toEqual([...made].reverse());
    expect(all.next_cursor).toBeNull();
    for (const run of all.runs) expect(run).not.toHaveProperty("output");
    // Each entry as its run's GET gives it. The run log may log a receipt between the two reads, so a
    // pair that differs is read again (bounded), both after the change.
    const detailOf = async (runId: string) => {
      const detailRes = await fetch(`${world.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } });
      const { output: _output, ...detail } = parseJson<Record<string, unknown>>(await detailRes.text());
      return detail;
    };
    let mismatch = "";
    await until("each listed run to equal its GET", async () => {
      const listed = (await page(`listing_id=${agent.listing_id}`)).runs;
      for (const run of listed) {
        const detail = await detailOf(run.run_id);
        if (!isDeepStrictEqual(run, detail)) return (mismatch = `${JSON.stringify(run)} vs ${JSON.stringify(detail)}`), false;
      }
      return true;
    }, 30_000, 200).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${mismatch}`);
    });
    expect(all.runs.map((r) => r.status)).toEqual(["completed", "completed", "completed", "failed", "completed"]);
    expect(all.runs.find((r) => r.status === "completed")!.cost_wei).toBe(PRICE_WEI);
    // The on-chain id names the same listing.
    expect((await page(`listing_id=0x${agent.listing_id.slice(4)}`)).runs.map((r) => r.run_id)).toEqual(all.runs.map((r) => r.run_id));
  });

  it("pages with limit and next_cursor, each run once, until next_cursor is null", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p: Listed = await page(`listing_id=${agent.listing_id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(p.runs.length).toBeLessThanOrEqual(2);
      seen.push(...p.runs.map((r) => r.run_id));
      cursor = p.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
    expect(pages).toBe(3);
  });

  it("never lists another wallet's runs; a listing the wallet never ran, or one that does not exist, is an empty list", async () => {
    const theirs = await page(`listing_id=${agent.listing_id}`, stranger);
    expect(theirs.runs).toHaveLength(1);
    expect(theirs.runs[0]!.run_id).not.toBeOneOf(made);
    expect((await page(`listing_id=${other.listing_id}`, stranger)).runs).toEqual([]);
    expect((await page(`listing_id=lst_${"ab".repeat(32)}`)).runs).toEqual([]);
    expect((await page(`listing_id=${other.listing_id}`)).runs).toHaveLength(1);
  });

  it("through the SDK: runs.list, with cost_wei a bigint", async () => {
    const client = new AgentRentalClient({ baseUrl: world.url, apiKey: renter.key });
    const listed = await client.runs.list(agent.listing_id, { limit: 1 });
    expect(listed.runs.map((r) => r.run_id)).toEqual([made.at(-1)]);
    expect(listed.runs[0]!.cost_wei).toBe(PRICE_WEI);
    expect(listed.next_cursor).toEqual(expect.any(String));
    expect((await client.runs.list(agent.listing_id, { limit: 1, cursor: listed.next_cursor! })).runs.map((r) => r.run_id)).toEqual([made.at(-2)]);
  });

  it("refuses bad input in the envelope with rate headers: no listing_id, a malformed one, a limit out of range, a cursor it never gave; and anyone not signed in", async () => {
    await expectError(await list(""), 400, "invalid_request");
    await expectError(await list("listing_id=not-a-listing"), 400, "invalid_listing_id");
    await expectError(await list(`listing_id=${agent.listing_id}&limit=0`), 400, "invalid_request");
    await expectError(await list(`listing_id=${agent.listing_id}&limit=101`), 400, "invalid_request");
    await expectError(await list(`listing_id=${agent.listing_id}&limit=two`), 400, "invalid_request");
    await expectError(await list(`listing_id=${agent.listing_id}&cursor=${Buffer.from("pk#anything").toString("base64url")}`), 400, "invalid_request");
    await expectError(await list(`listing_id=${agent.listing_id}&cursor=${"A".repeat(600)}`), 400, "invalid_request");
    await expectError(await list(`listing_id=${"x".repeat(500)}`), 400, "invalid_request");
    await expectError(await fetch(`${world.url}/v1/runs?listing_id=${agent.listing_id}`), 401, "unauthorized");
  });
});
