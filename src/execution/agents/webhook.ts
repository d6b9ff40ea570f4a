// A run of a connected agent: the agent runs on its creator's servers, so the service delivers the task
// as a Standard Webhooks-signed HTTPS POST to the manifest's entrypoint_url, through the egress guard,
// and reads the answer: one JSON document, or a text/event-stream whose output deltas are passed on as
// they arrive. Nothing of the creator's runs in our processes, so there is no sandbox; the only secret
// involved is the listing's own webhook secret. Wire protocol and decisions: docs/guides/connected-agents.md.
//
// Every failure of the call is a failed run, never a rejection. Error messages are shown to the renter:
// they never carry the secret, the signature, the entrypoint URL, its host or address, or response
// bodies; only a message the agent itself reports is passed on (cleaned, bounded, secret redacted).
import { EgressRefusedError, type EgressGuard } from "../../adapters/egress/guard.ts";
import { JSON_LIMITS, parseBoundedJson, TOO_DEEP_OUTPUT, type BoundedJson } from "../../protocols/bounded-json.ts";
import { MAX_OUTPUT_CHARS } from "../runs/run.ts";
import { SseParser, type SseEvent } from "./event-stream.ts";
import { webhookHeaders, WEBHOOK_SECRET_PREFIX, type WebhookHeaders } from "./webhook-signature.ts";
import type { RunFailure } from "../runs/run.ts";
import type { RunFailureCode } from "@agent-rental/core/vocabulary";

export interface ConnectedCall {
  /** The service's egress guard. */
  guard: EgressGuard;
  /** The manifest's entrypoint_url. */
  url: string;
  /** The listing's `whsec_` webhook secret. */
  secret: string;
  runId: string;
  agentId: string;
  listingId: string;
  task: string;
  input: string | Record<string, unknown> | null;
  /** The run's timeout (the manifest's, or the caller's lower one): covers connecting, the answer and
   * the whole body. */
  timeoutMs: number;
  /** Whether the renter is streaming; sent as a hint, the agent may answer either way. */
  stream: boolean;
  /** Each output delta of a streamed answer, as it arrives. */
  onDelta?: (delta: string) => void;
  signal?: AbortSignal;
}

export type ConnectedResult =
  | { status: "completed"; output: unknown }
  /** Partial output is the deltas already passed to onDelta. */
  | { status: "failed"; error: RunFailure };

/** The body of a task delivery (JSON). */
export interface RunRequestedEvent {
  type: "run.requested";
  run_id: string;
  agent_id: string;
  listing_id: string;
  task: string;
  input: string | Record<string, unknown> | null;
  /** The run's time budget, ms; the service stops waiting after it. */
  timeout_ms: number;
  /** ISO 8601: when the service stops waiting. */
  deadline: string;
  /** The renter is streaming: answering with text/event-stream lets output reach them as it is made. */
  stream: boolean;
}

export const CONNECTED_USER_AGENT = "agent-rental-webhook/1";
/** Longest message an agent's error report contributes to a failed run. */
const MAX_AGENT_MESSAGE_CHARS = 500;

type Failure = Extract<ConnectedResult, { status: "failed" }>;
const failed = (code: RunFailureCode, message: string): Failure => ({ status: "failed", error: { code, message } });

/** Delivers one run to a connected agent and returns its result. Never rejects for a failure of the
 * call (network, refusal, timeout, abort, a bad answer): those are failed results. An error thrown by
 * `onDelta` propagates, after the response has been released. */
export async function callConnectedAgent(call: ConnectedCall): Promise<ConnectedResult> {
  const timeoutMs = Math.max(1, Math.floor(call.timeoutMs));
  if (call.signal?.aborted) return cancelled(0);

  const now = new Date();
  const event: RunRequestedEvent = {
    type: "run.requested",
    run_id: call.runId,
    agent_id: call.agentId,
    listing_id: call.listingId,
    task: call.task,
    input: call.input ?? null,
    timeout_ms: timeoutMs,
    deadline: new Date(now.getTime() + timeoutMs).toISOString(),
    stream: call.stream,
  };
  const body = JSON.stringify(event);
  let signed: WebhookHeaders;
  try {
    signed = webhookHeaders(call.secret, call.runId, body, now);
  } catch {
    return failed("agent_not_configured", "The agent's webhook signing secret is not usable; its creator must rotate it.");
  }
  const redact = redactor([call.secret, call.secret.slice(WEBHOOK_SECRET_PREFIX.length), signed["webhook-signature"], signed["webhook-signature"].slice("v1,".length)]);

  let response: Response;
  try {
    response = await call.guard.fetch(call.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "user-agent": CONNECTED_USER_AGENT,
        ...signed,
      },
      body,
      // A signed delivery goes to the registered URL only.
      maxRedirects: 0,
      timeoutMs,
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
  } catch (error) {
    return failureOf(error, "request", { call, timeoutMs, deltaChars: 0 });
  }

  if (response.status < 200 || response.status > 299) {
    await release(response);
    if (response.status >= 300 && response.status < 400) return redirectFailure(response.status);
    return failed("agent_http_error", `The agent's endpoint answered HTTP ${response.status}.`);
  }

  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "text/event-stream") return readEventStream(response, call, timeoutMs, redact);
  if (mediaType === "" || mediaType === "application/json" || mediaType.endsWith("+json")) return readJson(response, call, timeoutMs, redact);
  await release(response);
  return failed("agent_invalid_response", `The agent's endpoint answered with content type ${safeMediaType(mediaType)}; a task is answered with application/json or text/event-stream.`);
}

/** A UTF-8 character takes at most 3 bytes per UTF-16 code unit (4 bytes make a surrogate pair), so a
 * body of more bytes than this holds more characters than the service reads. */
const MAX_JSON_BYTES = 3 * JSON_LIMITS.maxChars;

/** The body as text, read until it passes `maxChars` characters and no further: undefined then (the
 * rest is never downloaded, so an oversized answer costs one bound's worth of memory, not its size). */
async function readBounded(body: ReadableStream<Uint8Array>, maxChars: number): Promise<string | undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  let chars = 0;
  let finished = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      const part = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      chars += part.length;
      if (chars > maxChars) return undefined;
      parts.push(part);
      if (chunk.done) {
        finished = true;
        return parts.join("");
      }
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

async function readJson(response: Response, call: ConnectedCall, timeoutMs: number, redact: (text: string) => string): Promise<ConnectedResult> {
  const tooLarge = () => failed("output_too_large", `The agent's answer is larger than the ${JSON_LIMITS.maxChars} characters of JSON the service reads.`);
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_JSON_BYTES) {
    await release(response);
    return tooLarge();
  }
  let text: string | undefined;
  try {
    text = response.body === null ? "" : await readBounded(response.body, JSON_LIMITS.maxChars);
  } catch (error) {
    return failureOf(error, "body", { call, timeoutMs, deltaChars: 0 });
  }
  if (text === undefined) return tooLarge();
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return parsed.reason === "invalid_json" ? failed("agent_invalid_response", "The agent's endpoint answered with a body that is not valid JSON.") : unreadable(parsed);
  const document = parsed.value;
  if (!isObject(document)) return failed("agent_invalid_response", 'The agent\'s endpoint answered JSON that is not an object with an "output" member.');
  if (document.error !== undefined && document.error !== null) return agentError(document.error, redact);
  if (!("output" in document)) return failed("agent_invalid_response", 'The agent\'s endpoint answered JSON without an "output" member.');
  return { status: "completed", output: document.output };
}

async function readEventStream(response: Response, call: ConnectedCall, timeoutMs: number, redact: (text: string) => string): Promise<ConnectedResult> {
  if (response.body === null) return failed("agent_invalid_response", "The agent's endpoint answered with an empty event stream.");
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = new SseParser();
  let output = "";
  let deltas = 0;
  let finished = false;

  /** The run's result when `event` ends it, else undefined (after passing a delta on). */
  const handle = (event: SseEvent): ConnectedResult | undefined => {
    if (event.type === "output") {
      const data = parseJson(event.data);
      if (!isObject(data) || typeof data.delta !== "string") return failed("agent_invalid_response", 'An "output" event of the agent\'s stream is not JSON of the form {"delta": "<text>"}.');
      if (data.delta.length === 0) return undefined;
      // Past the run's output limit the run fails whatever follows: the rest is not read.
      if (output.length + data.delta.length > MAX_OUTPUT_CHARS) return failed("output_too_large", `The agent's output exceeds ${MAX_OUTPUT_CHARS} characters.`);
      output += data.delta;
      deltas += 1;
      call.onDelta?.(data.delta);
      return undefined;
    }
    if (event.type === "result") {
      const parsed = parseBoundedJson(event.data);
      if (!parsed.ok && parsed.reason !== "invalid_json") return unreadable(parsed);
      const data = parsed.ok ? parsed.value : undefined;
      if (!isObject(data) || !("output" in data)) return failed("agent_invalid_response", 'The "result" event of the agent\'s stream is not JSON of the form {"output": <value>}.');
      return { status: "completed", output: data.output };
    }
    if (event.type === "error") {
      const data = parseJson(event.data);
      return agentError(isObject(data) || typeof data === "string" ? data : event.data, redact);
    }
    // Other event types (and unnamed "message" events) are ignored, so agents may add their own.
    return undefined;
  };

  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        finished = true;
        return failureOf(error, "body", { call, timeoutMs, deltaChars: output.length });
      }
      if (chunk.done) {
        finished = true;
        const tail = parser.feed(decoder.decode());
        for (const event of tail) {
          const result = handle(event);
          if (result !== undefined) return result;
        }
        if (parser.end()) return failed("agent_invalid_response", "The agent's event stream ended inside an unfinished event (an event ends with a blank line).");
        if (deltas === 0) return failed("agent_invalid_response", 'The agent\'s event stream ended without output: send "output" events, a "result" event, or an "error" event.');
        // A clean end without a result event: the output is the text streamed.
        return { status: "completed", output };
      }
      for (const event of parser.feed(decoder.decode(chunk.value, { stream: true }))) {
        const result = handle(event);
        if (result !== undefined) return result;
      }
      // An event not finished yet is held by the parser: one past the bound is refused as it grows.
      if (parser.pendingChars > JSON_LIMITS.maxChars) return failed("output_too_large", `An event of the agent's stream is larger than the ${JSON_LIMITS.maxChars} characters the service reads.`);
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** A failed result for an error the agent reported: `{"message": "..."}` (or a bare string). */
function agentError(report: unknown, redact: (text: string) => string): Failure {
  const raw = typeof report === "string" ? report : isObject(report) && typeof report.message === "string" ? report.message : "";
  const message = cleanText(redact(cleanText(raw, Number.MAX_SAFE_INTEGER)), MAX_AGENT_MESSAGE_CHARS);
  return failed("agent_error", message.length > 0 ? `The agent reported an error: ${message}` : "The agent reported an error without a message.");
}

interface FailureContext {
  call: ConnectedCall;
  timeoutMs: number;
  /** Characters of output already passed on. */
  deltaChars: number;
}

/** The failed result for an error thrown while sending (`request`) or while reading the answer (`body`). */
function failureOf(error: unknown, phase: "request" | "body", context: FailureContext): Failure {
  if (context.call.signal?.aborted) return cancelled(context.deltaChars);
  const partial = context.deltaChars > 0 ? ` (${context.deltaChars} characters of output had arrived)` : "";
  if (error instanceof EgressRefusedError) {
    switch (error.reason) {
      case "timeout":
        // The guard's per-connection connect timeout, shorter than a long run's: the endpoint is unreachable.
        if (error.message.startsWith("Egress connection timed out")) return failed("agent_unreachable", "The agent's endpoint could not be reached (connection timed out).");
        return failed("timeout", phase === "request" ? `The agent did not answer within ${context.timeoutMs} ms.` : `The agent did not finish within ${context.timeoutMs} ms${partial}.`);
      case "response_too_large":
        return failed("output_too_large", `The agent's response exceeded ${responseCap(error)} the service reads.`);
      case "too_many_redirects":
        return redirectFailure(null);
      case "forbidden_address":
        return failed("egress_refused", `Egress refused: the agent's endpoint resolves to ${addressKind(error.message)}, which the service does not connect to.`);
      case "scheme_not_allowed":
        return failed("egress_refused", "Egress refused: the agent's endpoint is not an HTTPS URL.");
      case "dns_failure":
        return failed("egress_refused", "Egress refused: the agent's endpoint host name did not resolve.");
    }
  }
  if (phase === "body") return failed("agent_stream_cut", `The agent's response was cut before it ended${partial}.`);
  return failed("agent_unreachable", `The agent's endpoint could not be reached (${networkFailureKind(error)}).`);
}

function cancelled(deltaChars: number): Failure {
  return failed("cancelled", deltaChars > 0 ? `The run was cancelled before the agent finished (${deltaChars} characters of output had arrived).` : "The run was cancelled before the agent answered.");
}

function redirectFailure(status: number | null): Failure {
  const what = status === null ? "a redirect" : `a redirect (HTTP ${status})`;
  return failed("agent_http_error", `The agent's endpoint answered with ${what}, which is not followed: a task is delivered to the registered entrypoint URL only.`);
}

/** "a loopback address", "a cloud metadata address", … from the guard's message, which also names the
 * host and address; only the kind is kept. */
function addressKind(guardMessage: string): string {
  const kind = / is (a cloud metadata address|an? [a-z() -]{1,40} address)\.$/.exec(guardMessage)?.[1];
  return kind ?? "an address outside the public internet";
}

function responseCap(error: EgressRefusedError): string {
  const bytes = / exceeded (\d+) bytes\.$/.exec(error.message)?.[1];
  return bytes === undefined ? "the largest response" : `the ${bytes} bytes`;
}

/** The kind of a network failure, from the error codes in its cause chain; never its message (which
 * may name the URL). */
function networkFailureKind(error: unknown): string {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || e === undefined || seen.has(e) || typeof e !== "object") continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      const kind = NETWORK_FAILURES[code];
      if (kind !== undefined) return kind;
    }
    queue.push((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) queue.push(...e.errors);
  }
  return "network error";
}

const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  CERT_NOT_YET_VALID: "TLS certificate not yet valid",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  UNABLE_TO_GET_ISSUER_CERT: "TLS certificate not trusted",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "TLS certificate not trusted",
  CERT_UNTRUSTED: "TLS certificate not trusted",
  CERT_REVOKED: "TLS certificate revoked",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate does not match the host",
  ERR_SSL_WRONG_VERSION_NUMBER: "TLS handshake failed",
  EPROTO: "TLS handshake failed",
};

async function release(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function safeMediaType(mediaType: string): string {
  return mediaType === "" ? "(none)" : mediaType.replace(/[^a-z0-9!#$&^_.+/-]/g, "?").slice(0, 80);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A stream event's JSON (an output delta, an error report), or undefined when it is not JSON within
 * the bounds: such an event is malformed. */
function parseJson(text: string): unknown {
  const parsed = parseBoundedJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The failed run for an answer too deep or too large to read (see bounded-json.ts). */
function unreadable(parsed: Extract<BoundedJson, { ok: false }>): Failure {
  return parsed.reason === "too_large"
    ? failed("output_too_large", `The agent's answer is larger than the ${JSON_LIMITS.maxChars} characters of JSON the service reads.`)
    : failed("invalid_output", `${TOO_DEEP_OUTPUT.charAt(0).toUpperCase()}${TOO_DEEP_OUTPUT.slice(1)}.`);
}

/** Control and bidirectional-override characters become spaces, runs of space collapse, and the text
 * is cut to `max` characters. */
function cleanText(text: string, max: number): string {
  const clean = text
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** Replaces every occurrence of the given secrets (longest first) with "[redacted]". */
function redactor(secrets: string[]): (text: string) => string {
  const needles = [...new Set(secrets.filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  return (text) => needles.reduce((out, needle) => out.split(needle).join("[redacted]"), text);
}
