// The run's one egress guard: the model endpoint, http_fetch and web_search all connect through it, so
// every connection of the run is resolved and judged at connect time by the same rules.
import dns from "node:dns";
import net from "node:net";
import { createEgressGuard, type EgressGuard, type EgressLookup } from "../adapters/egress/guard.ts";
import { AgentRunError } from "./errors.ts";
import type { AgentRunPayload } from "./payload.ts";

export interface RunEgress {
  guard: EgressGuard;
  /** True when `hostname` is a local-development exception (`allowPrivate`, or listed in `allowHosts`):
   * such a host may be called over `http:` and on any port. */
  isDevelopmentHost(hostname: string): boolean;
}

/** The guard for one run; its calls are bounded by the run's remaining time. */
export function createRunEgress(egress: AgentRunPayload["egress"], remainingMs: number): RunEgress {
  const allowHosts = (egress.allowHosts ?? []).map(normalize);
  const fixed = new Map<string, string>();
  for (const [host, address] of Object.entries(egress.resolve ?? {})) {
    if (net.isIP(address) === 0) throw new AgentRunError(`the run's egress.resolve maps "${host.slice(0, 60)}" to something that is not an IP address`);
    fixed.set(normalize(host), address);
  }
  const lookup: EgressLookup = (hostname, options, callback) => {
    const address = fixed.get(normalize(hostname));
    if (address === undefined) return dns.lookup(hostname, options, callback);
    callback(null, [{ address, family: net.isIP(address) }]);
  };
  const guard = createEgressGuard({
    allowPrivate: egress.allowPrivate === true,
    allowHosts,
    lookup,
    timeoutMs: Math.max(1, Math.ceil(remainingMs)),
  });
  return {
    guard,
    isDevelopmentHost: (hostname) => egress.allowPrivate === true || allowHosts.includes(normalize(hostname)),
  };
}

function normalize(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, "");
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}
