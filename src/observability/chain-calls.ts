// Chain call latency: the fetch viem's http transport sends JSON-RPC with, timed. Given to every chain
// client the service creates (src/services.ts), so reads, simulations and the authority's transactions
// are all counted. A batch of calls is one round trip and counts once.
import type { Metrics } from "../adapters/metrics/port.ts";

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `fetch`, recording each round trip (to the response's headers) as ChainCallLatency, and each one that
 * failed (no answer, or an HTTP error status) as ChainCallErrors. A JSON-RPC error (a revert) is an
 * answer: the node was reached. */
export function observedFetch(metrics: Metrics, base: FetchFn = (input, init) => fetch(input, init)): FetchFn {
  return async (input, init) => {
    const started = performance.now();
    const record = (ok: boolean) => {
      metrics.observe("ChainCallLatency", performance.now() - started, { outcome: ok ? "ok" : "error" });
      if (!ok) metrics.count("ChainCallErrors");
    };
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      record(false);
      throw error;
    }
    record(response.ok);
    return response;
  };
}
