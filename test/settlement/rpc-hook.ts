// A JSON-RPC hop in front of a Hardhat node, for the reorganisation tests: every request is passed on
// as it is, and a hook may act on the node (an evm_revert) after the node answered and before the
// answer goes back, so a block can be taken away exactly between two reads of the same client.
import { createServer, type Server } from "node:http";
import { freePort } from "../../local/ports.ts";
import { readBody } from "../support/http.ts";

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** Called with each call and the node's answer to it; the answer is sent on once it resolves. */
export type RpcHook = (call: RpcCall, result: unknown) => Promise<void> | void;

export interface RpcHop {
  url: string;
  /** The hook (one at a time; undefined: none). */
  hook: RpcHook | undefined;
  stop(): Promise<void>;
}

export async function startRpcHop(target: string): Promise<RpcHop> {
  const hop: RpcHop = { url: "", hook: undefined, stop: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
        const text = await answer.text();
        const hook = hop.hook;
        if (hook) {
          const calls = [JSON.parse(body)].flat() as (RpcCall & { id: unknown })[];
          const results = [JSON.parse(text)].flat() as { id: unknown; result?: unknown }[];
          for (const call of calls) await hook(call, results.find((r) => r.id === call.id)?.result);
        }
        res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    })();
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  hop.url = `http://127.0.0.1:${port}`;
  hop.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return hop;
}
