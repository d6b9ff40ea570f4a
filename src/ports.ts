// The outside world as the process's wiring (src/services.ts) hands it to the areas: each port's type,
// from the adapters, the chain client and the configuration. An area names the few it uses in a
// narrow type of its own (src/<area>/services.ts, a Pick of these); no area sees the whole bag.
import type { Config } from "./config.ts";
import type { Tables } from "./adapters/tables/dynamo.ts";
import type { Queue } from "./adapters/queue/sqs.ts";
import type { Blobs } from "./adapters/blobs/s3.ts";
import type { ChainClient } from "./chain/client.ts";
import type { AuthoritySigner } from "./chain/authority.ts";
import type { Authenticator } from "./auth/principal.ts";
import type { JwtIssuer } from "./auth/jwt.ts";
import type { Logger } from "./logger.ts";
import type { RateLimiter } from "./adapters/ratelimit/port.ts";
import type { KeyWrapper } from "./adapters/keys/port.ts";
import type { EgressGuard } from "./adapters/egress/guard.ts";
import type { SandboxPool, SandboxStats } from "./adapters/sandbox/port.ts";
import type { Metrics } from "./adapters/metrics/port.ts";

export interface Ports {
  config: Config;
  logger: Logger;
  /** Counters and timings: EMF on stdout in the cloud, and always this process's aggregate (health). */
  metrics: Metrics;
  tables: Tables;
  queue: Queue;
  blobs: Blobs;
  chain: ChainClient;
  jwt: JwtIssuer;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  keys: KeyWrapper;
  /** The protocol authority's signer (settlement, run log); null when no key is configured. */
  authority: AuthoritySigner | null;
  /** The one way out for connected-agent webhooks (agent runtimes build their own from `egressRules`). */
  egress: EgressGuard;
  /** The way out for OAuth client metadata documents: the egress rules, bounded to a small document. */
  clientMetadataEgress: EgressGuard;
  /** The egress rules handed to every run. */
  egressRules: { allowPrivate: boolean; allowHosts: string[] };
  /** The sandbox pool for declarative agents, started on first use. */
  sandbox: () => SandboxPool;
  /** The sandbox pool's figures, or null when no pool was started (nothing is started to answer). */
  sandboxStats: () => SandboxStats | null;
  /** The agent runtime's entry module (the bundle a sandbox loads). */
  runtimeEntry: string;
}
