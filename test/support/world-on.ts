// The test world on given infrastructure: the service's real dependencies (createServicesOn), the app,
// the API served over HTTP, background jobs from the service's job list, the fake connected agent, and
// publishing through the real pipeline (local/publish.ts, the demo's code path), with approved creators
// and renters. One `close()` stops everything it started, in reverse order. Free of vitest imports:
// the benchmarks start their own emulators and chain (startInfrastructure) and open a world on them;
// the test suites use test/support/world.ts, which opens it on the shared ones.
import type { Server } from "node:http";
import { parseEther, type Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { apiUrl, closeApiServer, listenApi, type ApiFetch, type ApiServerOptions } from "../../src/api/server.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import type { MarketplaceTarget } from "../../src/chain/write.ts";
import { chainFor } from "../../src/chain/client.ts";
import type { Config } from "../../src/config.ts";
import type { Services } from "../../src/services.ts";
import { JOB_NAMES, runJob, startJobs, type JobName, type JobScheduler, type StartJobsOptions } from "../../src/jobs.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";
import { LOCAL_CHAIN_ID, startChain } from "../../local/chain.ts";
import { startDynamo, startQueues } from "../../local/emulators.ts";
import { freePort } from "../../local/ports.ts";
import { approveCreator, publishAgent, type PublishedAgent } from "../../local/publish.ts";
import { createServicesOn, DAYS_30, fundAccount, type Account, type Market } from "./chain-actions.ts";
import { startConnectedAgent, type AgentHandler, type ConnectedAgentOptions, type ConnectedAgentServer } from "./connected-agent.ts";
import { createKey, signIn } from "./auth.ts";
import type { TestContext } from "./services.ts";

export type { PublishedAgent } from "../../local/publish.ts";

/** Where the emulators and the chain listen. */
export interface Infrastructure {
  rpcUrl: string;
  dynamoEndpoint: string;
  /** The SQS/S3 emulator (registration and blobs need it). */
  awsEndpoint?: string;
}

/** The app as buildApp makes it. */
export type App = ReturnType<typeof buildApp>;

export interface WorldOptions {
  /** Service configuration on top of the test defaults (ALLOW_PRIVATE_AGENT_HOSTS is on with an agent). */
  env?: Record<string, string>;
  /** Adapters handed to createServices in place of the configured ones (a rate limiter, a logger…). */
  adapters?: Partial<Services>;
  /** Serves the API over HTTP on a free port of 127.0.0.1 (default true), with these server options. */
  serve?: boolean | ApiServerOptions;
  /** Runs background jobs from the service's job list while the world lives: true for every job, or
   * startJobs options (which ones, how often). Default: none (a test runs a pass with `runJob`), except
   * the settler (see `settler`). */
  jobs?: boolean | StartJobsOptions;
  /** Runs the settler job while the world lives (default true): per-query runs are charged through it, as
   * on the local stack. False for a world whose test drives the settler itself. */
  settler?: boolean;
  /** Starts the fake connected agent (true, or its options); the services' egress guard reaches it. */
  agent?: boolean | ConnectedAgentOptions;
}

export interface Creator {
  account: Account;
  /** The creator's session token (signed in once). */
  token: string;
}

export interface Renter {
  account: Account;
  token: string;
  /** An API key of the renter's. */
  key: string;
}

export interface PublishOptions {
  /** Default one_time. */
  rental?: RentalModel;
  /** The listing's price in ETH (default 0.001). */
  price?: string;
  /** Default: the world's creator. */
  creator?: Creator;
  /** A declarative agent's model-provider key. */
  providerKey?: string;
}

export interface ConnectedPublishOptions extends PublishOptions {
  /** Manifest fields on top of the world's connected-agent manifest (name and entrypoint are set). */
  manifest?: Record<string, unknown>;
  /** The agent's own handler on the fake connected agent (default: the agent server's). */
  handler?: AgentHandler;
}

export interface RentOptions {
  /** A per-query deposit in wei (default five runs at the listing's price). */
  deposit?: bigint;
  /** A subscription's duration in seconds (default 30 days). */
  duration?: bigint;
}

export interface World {
  /** The services, their configuration and the marketplace's authority and treasury. */
  ctx: TestContext;
  services: Services;
  config: Config;
  /** The app, for in-process requests (`app.request`). */
  app: App;
  /** The served API's base URL (throws when the world was started with `serve: false`). */
  readonly url: string;
  /** The served API's HTTP server (undefined with `serve: false`). */
  readonly server: Server | undefined;
  /** The running background jobs (undefined without `jobs` and without the settler). */
  readonly jobs: JobScheduler | undefined;
  /** The fake connected agent (throws when the world was started without `agent`). */
  readonly agent: ConnectedAgentServer;
  /** The chain, reached directly (not through any link the services' RPC_URL may point at). */
  rpcUrl: string;
  /** The marketplace as a transaction target, and its typed actions. */
  target: MarketplaceTarget;
  market: Market;
  /** A fresh funded account. */
  account(ether?: string): Promise<Account>;
  /** Signs `account` in through the API; its session token. */
  signIn(account: Account): Promise<string>;
  /** The world's creator: approved and signed in, made on first use. */
  creator(): Promise<Creator>;
  /** Another approved, signed-in creator. */
  newCreator(displayName?: string): Promise<Creator>;
  /** A fresh funded renter, signed in, with an API key. */
  renter(): Promise<Renter>;
  /** Publishes `manifest` through the real pipeline (registered, listed, approved, indexed). */
  publish(manifest: Record<string, unknown>, options?: PublishOptions): Promise<PublishedAgent>;
  /** Publishes a connected agent at the fake agent's `/agents/<name>` and gives the agent its secret. */
  publishConnected(name: string, options?: ConnectedPublishOptions): Promise<PublishedAgent & { webhookSecret: string }>;
  /** Buys `listing` for `account` under its rental model, then catches the index up. */
  rent(account: Account, listing: PublishedAgent, options?: RentOptions): Promise<void>;
  /** One pass of the indexer job. */
  index(): Promise<void>;
  /** Runs `cleanup` when the world closes (before what the world itself started). */
  defer(cleanup: () => unknown): void;
  /** Stops everything the world started, in reverse order. */
  close(): Promise<void>;
}

/** The manifest of a connected agent that answers findings, under the fields a test gives. */
export const CONNECTED_MANIFEST = {
  category: "research",
  description: "A connected test agent",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object" },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 20,
};

/** Starts a Hardhat node, dynalite and fauxqs on free ports (what a benchmark runs a world on). */
export async function startInfrastructure(): Promise<Required<Infrastructure> & { stop(): Promise<void> }> {
  const started = await Promise.allSettled([freePort().then((port) => startChain({ port })), freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))] as const);
  const stops = started.flatMap((result) => (result.status === "fulfilled" ? [() => result.value.stop()] : []));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) {
    await Promise.allSettled(stops.map((stop) => stop()));
    throw failed.reason;
  }
  const [chain, dynamo, aws] = started.map((result) => (result as PromiseFulfilledResult<{ stop(): Promise<void> }>).value) as unknown as [{ rpcUrl: string }, { endpoint: string }, { endpoint: string }];
  return {
    rpcUrl: chain.rpcUrl,
    dynamoEndpoint: dynamo.endpoint,
    awsEndpoint: aws.endpoint,
    async stop() {
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}

/**
 * Opens a world on `infrastructure`. What fails while it opens stops what had started.
 *
 * @example
 * const world = await startWorldOn(infrastructure, { agent: true, jobs: { only: ["indexer"] } });
 * const agent = await world.publishConnected("researcher", { rental: "per_query" });
 * await world.close();
 */
export async function startWorldOn(infrastructure: Infrastructure, options: WorldOptions = {}): Promise<World> {
  const cleanups: (() => unknown)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // Each part is stopped even when another fails to stop.
      }
    }
  };
  try {
    return await open(infrastructure, options, cleanups, close);
  } catch (error) {
    await close();
    throw error;
  }
}

async function open(infrastructure: Infrastructure, options: WorldOptions, cleanups: (() => unknown)[], close: () => Promise<void>): Promise<World> {
  const rpcUrl = infrastructure.rpcUrl;
  let agent: ConnectedAgentServer | undefined;
  if (options.agent) {
    const started = await startConnectedAgent(options.agent === true ? {} : options.agent);
    agent = started;
    cleanups.push(() => started.stop());
  }
  // The world's server listens first: its address is the API's configured base (API_URL), as on every
  // server the project ships, where the API never names itself from a request's Host header.
  let server: Server | undefined;
  let handle: ApiFetch | undefined;
  if (options.serve !== false) {
    const listening = await listenApi((request, env) => (handle ? handle(request, env) : new Response("starting", { status: 503 })), 0, options.serve === true || options.serve === undefined ? {} : options.serve);
    server = listening;
    cleanups.push(() => closeApiServer(listening));
  }
  const made = await createServicesOn({
    ...infrastructure,
    env: { ...(server ? { API_URL: apiUrl(server) } : {}), ...(agent ? { ALLOW_PRIVATE_AGENT_HOSTS: "true" } : {}), ...options.env },
    adapters: { ...(agent ? { egress: createEgressGuard(agent.guardOptions) } : {}), ...options.adapters },
  });
  const { services, config } = made;
  cleanups.push(() => services.close());
  const ctx: TestContext = { config, services, env: made.env, authority: made.authority, treasury: made.treasury };
  const app = buildApp(services);

  handle = app.fetch as ApiFetch;
  // Stopped before the services it serves (closing twice is harmless).
  if (server) cleanups.push(() => closeApiServer(server));
  let jobs: JobScheduler | undefined;
  const requested = options.jobs === true ? {} : options.jobs || undefined;
  const withSettler = options.settler !== false;
  if (requested || withSettler) {
    const only = requested ? (requested.only ?? (JOB_NAMES as readonly JobName[])) : [];
    const names = withSettler ? [...new Set<JobName>([...only, "settler"])] : only.filter((name) => name !== "settler");
    const scheduler = startJobs(services, { ...requested, only: names });
    jobs = scheduler;
    cleanups.push(() => scheduler.stop());
  }

  const target: MarketplaceTarget = { rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), marketplace: made.market.marketplace };
  const market = made.market;
  const account = (ether?: string) => fundAccount(rpcUrl, ether);
  const signInAs = async (who: Account) => (await signIn(app, who)).token;
  let displayNames = 0;
  const newCreator = async (displayName = `Test Creator ${++displayNames}`): Promise<Creator> => {
    const creator = await account();
    await approveCreator(services, creator.address, displayName);
    return { account: creator, token: await signInAs(creator) };
  };
  let mainCreator: Promise<Creator> | undefined;
  const creator = () => (mainCreator ??= newCreator());
  const index = async () => void (await runJob(services, "indexer"));
  const needAgent = (): ConnectedAgentServer => {
    if (!agent) throw new Error("This world has no connected agent: start it with { agent: true }.");
    return agent;
  };

  const publish = async (manifest: Record<string, unknown>, publishOptions: PublishOptions = {}) => {
    const by = publishOptions.creator ?? (await creator());
    return publishAgent(services, by.account, manifest, {
      rental: publishOptions.rental ?? "one_time",
      priceWei: parseEther(publishOptions.price ?? "0.001"),
      target,
      ...(publishOptions.providerKey === undefined ? {} : { providerKey: publishOptions.providerKey }),
    });
  };

  // Runs held at the agent's gates are let go before anything stops, so nothing waits on them.
  if (agent) cleanups.push(() => agent.gates.openAll());

  const world: World = {
    ctx,
    services,
    config,
    app,
    get url() {
      if (!server) throw new Error("This world's API is not served: start it without { serve: false }.");
      return apiUrl(server);
    },
    get server() {
      return server;
    },
    get jobs() {
      return jobs;
    },
    get agent() {
      return needAgent();
    },
    rpcUrl,
    target,
    market,
    account,
    signIn: signInAs,
    creator,
    newCreator,
    async renter() {
      const renter = await account();
      const token = await signInAs(renter);
      return { account: renter, token, key: (await createKey(app, renter, token)).key };
    },
    publish,
    async publishConnected(name, connected = {}) {
      const server = needAgent();
      if (connected.handler) server.define(name, connected.handler);
      const published = await publish({ ...CONNECTED_MANIFEST, ...connected.manifest, name, entrypoint_url: server.entrypoint(name) }, connected);
      if (published.webhookSecret === undefined) throw new Error(`connected agent ${name} got no webhook secret`);
      server.setSecret(name, published.webhookSecret);
      return published as PublishedAgent & { webhookSecret: string };
    },
    async rent(buyer, listing, rentOptions = {}) {
      const id = listing.onChainId as Hex;
      if (listing.rental === "per_query") await market.purchasePerQuery(buyer, id, rentOptions.deposit ?? listing.priceWei * 5n);
      else if (listing.rental === "subscription") await market.purchaseSubscription(buyer, id, rentOptions.duration ?? DAYS_30);
      else await market.purchaseOneTime(buyer, id, listing.priceWei);
      await index();
    },
    index,
    defer(cleanup) {
      cleanups.push(cleanup);
    },
    close,
  };
  return world;
}
