// The model server keeps a bounded window of the requests it received, the newest, so a local stack
// that serves thousands of runs does not grow with each one.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_KEPT_REQUESTS, startModelServer, type ModelServer } from "../../local/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function chat(url: string, n: number): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `request ${n}` }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const numberOf = (request: { body: unknown }) => Number(/request (\d+)/.exec(JSON.stringify(request.body))?.[1]);

describe("recorded requests", () => {
  it("keeps only the newest `keepRequests` of more requests, oldest first", async () => {
    server = await startModelServer({ keepRequests: 10 });
    for (let n = 0; n < 35; n++) await chat(server.openaiBaseUrl, n);
    const kept = server.requests();
    expect(kept.map(numberOf)).toEqual(Array.from({ length: 10 }, (_, i) => 25 + i));
  });

  it("is bounded by default", async () => {
    server = await startModelServer();
    const total = DEFAULT_KEPT_REQUESTS + 20;
    for (let n = 0; n < total; n++) await chat(server.openaiBaseUrl, n);
    const kept = server.requests();
    expect(kept).toHaveLength(DEFAULT_KEPT_REQUESTS);
    expect(numberOf(kept.at(-1)!)).toBe(total - 1);
    expect(numberOf(kept[0]!)).toBe(20);
  }, 60_000);
});
