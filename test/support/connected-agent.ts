// The fake connected agent: one real HTTPS server on 127.0.0.1 (its own CA) hosting named agents at
// `/agents/<name>`, each a handler that answers JSON, an event stream, an error, or waits at a gate the
// test opens. Every delivery's Standard Webhooks signature is checked with the listing's secret (by the
// `standardwebhooks` library, as a creator's agent would check it) and every delivery is recorded for
// assertions. Free of vitest imports, so the benchmarks use it too.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import type { EgressGuardOptions } from "../../src/adapters/egress/guard.ts";
import { createGates } from "./gates.ts";
import { readBody } from "./http.ts";
import { startHttpsServer, type HttpsTestServer } from "./https-server.ts";

/** A delivery as the agent received it. */
export interface AgentDelivery {
  /** The agent's name (the path after `/agents/`), or the whole path for any other path. */
  agent: string;
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The request body as sent. */
  body: string;
  /** The body parsed (null when it is not JSON). */
  payload: Record<string, unknown> | null;
  task: string;
  runId: string;
  input: unknown;
  /** Whether the Standard Webhooks signature verified with the agent's secret. */
  verified: boolean;
}

/** One delivery being answered: the delivery, the raw request and response, and ways to answer. */
export interface AgentCall extends AgentDelivery {
  req: IncomingMessage;
  res: ServerResponse;
  /** Answers `value` as JSON (with `status`, 200 by default). */
  json(value: unknown, status?: number): void;
  /** Answers `{ output }` as JSON. */
  output(output: unknown): void;
  /** Answers an event stream: an `output` event per delta, then `result` with `output` (unless
   * undefined). `between(i)` runs after the i-th delta is written (to hold the stream there). */
  stream(deltas: readonly string[], output?: unknown, between?: (index: number) => Promise<void> | void): Promise<void>;
  /** Opens an event stream without ending it. */
  startEvents(): void;
  /** Writes one event of an open stream. */
  event(name: string, data: unknown): void;
  /** Answers `status` with an optional body (a failing endpoint). */
  fail(status?: number, body?: string): void;
  /** Waits at the gate the test holds for this delivery's task, if any (counted as arrived there). */
  gate(): Promise<void>;
}

export type AgentHandler = (call: AgentCall) => void | Promise<void>;

/** Findings naming the task: `{ output: { findings: ["done: <task>"] } }`. */
export const answerDone: AgentHandler = (call) => call.output({ findings: [`done: ${call.task}`] });

export interface ConnectedAgentOptions {
  /** The handler of every agent without one of its own (default `answerDone`; null: such a path is 404). */
  handler?: AgentHandler | null;
  /** The secret of agents whose own secret was not set (default: one no listing has, so nothing verifies). */
  secret?: string;
  /** A delivery whose signature does not verify: "refuse" answers 401 without calling the handler
   * (default), "answer" calls the handler all the same (`verified` says it did not verify). */
  unsigned?: "refuse" | "answer";
}

export interface ConnectedAgentServer {
  /** `https://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The CA certificate (PEM) clients trust. */
  readonly ca: string;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** The egress guard options that reach this server (and 127.0.0.1 only). */
  readonly guardOptions: EgressGuardOptions;
  /** The URL of the named agent: what its manifest's `entrypoint_url` is. */
  entrypoint(name: string): string;
  /** The path of the named agent. */
  path(name: string): string;
  /** Gives the named agent its own handler. */
  define(name: string, handler: AgentHandler): void;
  /** Sets the secret the named agent checks signatures with (its listing's webhook secret). */
  setSecret(name: string, secret: string): void;
  /** Every delivery so far, in order of arrival. */
  readonly deliveries: AgentDelivery[];
  /** The deliveries to the named agent. */
  deliveriesTo(name: string): AgentDelivery[];
  /** Gates keyed by task, which `call.gate()` waits at. */
  readonly gates: ReturnType<typeof createGates>;
  /** Opens every gate, then closes every connection and the listener. */
  stop(): Promise<void>;
}

const PREFIX = "/agents/";
/** A valid secret no listing is given: a delivery checked against it never verifies. */
const NO_SECRET = "whsec_AAAA";

function nameOf(path: string): string {
  const bare = path.split("?")[0] ?? path;
  return bare.startsWith(PREFIX) ? bare.slice(PREFIX.length) : bare;
}

/**
 * Starts the fake connected agent on a free port of 127.0.0.1.
 *
 * @example
 * const agents = await startConnectedAgent({ handler: (call) => (call.task.startsWith("fail") ? call.fail() : call.output({ findings: [call.task] })) });
 * manifest.entrypoint_url = agents.entrypoint("researcher");
 */
export async function startConnectedAgent(options: ConnectedAgentOptions = {}): Promise<ConnectedAgentServer> {
  const fallback = options.handler === undefined ? answerDone : options.handler;
  const unsigned = options.unsigned ?? "refuse";
  const handlers = new Map<string, AgentHandler>();
  const secrets = new Map<string, string>();
  const deliveries: AgentDelivery[] = [];
  const gates = createGates();

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = req.url ?? "/";
    const agent = nameOf(path);
    let verified = false;
    try {
      new Webhook(secrets.get(agent) ?? options.secret ?? NO_SECRET).verify(body, req.headers as Record<string, string>);
      verified = true;
    } catch {
      verified = false;
    }
    let payload: Record<string, unknown> | null = null;
    try {
      const parsed = JSON.parse(body) as unknown;
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
    } catch {
      payload = null;
    }
    const delivery: AgentDelivery = {
      agent,
      path,
      method: req.method ?? "",
      headers: req.headers,
      body,
      payload,
      task: typeof payload?.task === "string" ? payload.task : "",
      runId: typeof payload?.run_id === "string" ? payload.run_id : "",
      input: payload?.input,
      verified,
    };
    deliveries.push(delivery);
    if (!verified && unsigned === "refuse") return void res.writeHead(401).end();
    const handler = handlers.get(agent) ?? fallback;
    if (!handler) return void res.writeHead(404).end();
    const write = (text: string) => void (res.destroyed || res.write(text));
    const call: AgentCall = {
      ...delivery,
      req,
      res,
      json(value, status = 200) {
        if (res.destroyed) return;
        const text = JSON.stringify(value);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
      },
      output(output) {
        call.json({ output });
      },
      startEvents() {
        if (res.headersSent) return;
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.flushHeaders();
      },
      event(name, data) {
        write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      },
      async stream(deltas, output, between) {
        call.startEvents();
        for (const [i, delta] of deltas.entries()) {
          call.event("output", { delta });
          await between?.(i);
        }
        if (res.destroyed) return;
        if (output === undefined) res.end();
        else res.end(`event: result\ndata: ${JSON.stringify({ output })}\n\n`);
      },
      fail(status = 500, text) {
        if (res.destroyed) return;
        if (text === undefined) res.writeHead(status).end();
        else res.writeHead(status, { "content-type": "application/json" }).end(text);
      },
      async gate() {
        const gate = gates.get(delivery.task);
        if (!gate) return;
        gate.arrived++;
        await gate.release;
      },
    };
    await handler(call);
  }

  const server: HttpsTestServer = await startHttpsServer((req, res) => {
    receive(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(`the test agent failed: ${String(error)}`);
      else res.destroy();
    });
  });

  return {
    url: server.url,
    port: server.port,
    ca: server.ca,
    get connections() {
      return server.connections;
    },
    guardOptions: { ca: server.ca, allowHosts: ["127.0.0.1"] },
    entrypoint: (name) => `${server.url}${PREFIX}${name}`,
    path: (name) => `${PREFIX}${name}`,
    define(name, handler) {
      handlers.set(name, handler);
    },
    setSecret(name, secret) {
      secrets.set(name, secret);
    },
    deliveries,
    deliveriesTo: (name) => deliveries.filter((d) => d.agent === name),
    gates,
    async stop() {
      gates.openAll();
      await server.stop();
    },
  };
}
