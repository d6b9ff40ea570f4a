// Task execution: admission (every check before any agent work, nothing charged when one refuses) and
// the run itself (a fresh sandbox for a declarative agent, a signed webhook for a connected one), then
// output validation, per-query settlement and the run record. The synchronous and streaming routes both
// come through here; they differ only in what they do with the output deltas.
import type { Address } from "viem";
import type { Services } from "../services.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import { isConditionalCheckFailure } from "../adapters/tables/dynamo.ts";
import { CID_SHAPE, cidOf } from "../registration/cid.ts";
import { readListingSecret } from "../registration/listing-secrets.ts";
import type { AgentRunOutput, AgentRunPayload } from "../runtime/payload.ts";
import { checkExecutionAccess, type ExecutionAccess } from "./access.ts";
import { loadAgentLogic, describeSchemaErrors, type AgentLogic } from "./agent-logic.ts";
import { acquireLease, releaseLease } from "./leases.ts";
import { releaseReservation, reserveRun, SETTLEMENT_WINDOW_MS } from "./ledger.ts";
import pRetry from "p-retry";
import { RunDeadlineError, scrub } from "../runtime/errors.ts";
import { claimIdempotencyKey, claimOf, releaseIdempotencyKey, type IdempotencyClaim } from "./idempotency.ts";
import { barRun, createRun, finishRun, getRun, MAX_OUTPUT_CHARS, newRunId, runningIndex, saveStreamedText, type RunRecord } from "./runs.ts";
import { markSettlementPending, settleRun } from "./settlement.ts";
import { callConnectedAgent } from "./connected.ts";
import { recordRunOutcome } from "../listings/stats.ts";
import type { FinishedRunStatus } from "../vocabulary.ts";

import { MAX_TOOL_STEPS, RUNS_PER_LISTING, SANDBOX_MEMORY_MB } from "./limits.ts";
import { agentSandboxNeeds } from "../runtime/sandbox.ts";
const RUN_DEADLINE_REASON = new RunDeadlineError().message;
/** How often the text streamed so far is saved while a run is in flight (for resuming streams). */
const STREAM_SAVE_MS = 250;

export interface ExecuteRequest {
  agent_id: string;
  task: string;
  input?: string | Record<string, unknown>;
  input_uri?: string;
  priority?: "standard" | "priority";
  timeout_seconds?: number;
}

/** The Run the API returns (cost_wei exact as a bigint; serialised as a JSON integer). */
export interface RunResponse {
  run_id: string;
  agent_id: string;
  status: FinishedRunStatus;
  output: unknown;
  cost_wei: bigint;
  duration_ms: number;
  error?: { code: string; message: string };
}

export interface Admission {
  run: RunRecord;
  access: ExecutionAccess;
  logic: AgentLogic;
  request: ExecuteRequest;
  timeoutMs: number;
  startedAt: number;
  /** The listing's secret the run needs (the provider key of a declarative agent, the webhook secret of a
   * connected one), read while the admission's writes are under way. Settles to null when none is set,
   * and rejects only with a storage failure (awaited, that fails the run as internal_error). */
  secret: Promise<string | null>;
}

export type AdmissionResult =
  | { kind: "admitted"; admission: Admission }
  /** An earlier request with the same Idempotency-Key claimed it for `runId`. Its run record may not
   * exist yet while that request is still being admitted; `claim` is what follows it (claimedRun). */
  | { kind: "existing"; runId: string; claim: IdempotencyClaim };

export interface AdmitOptions {
  idempotency?: { key: string; bodyHash: string };
  /** Applies the execution rate rule for the resolved listing (the route owns the HTTP side of it). */
  rateLimit(listingId: string): Promise<void>;
  /** How the output will leave the service (default sync): deltas of a stream are delivered output. */
  delivery?: "stream" | "sync";
}

/** The lease item counting a listing's runs in flight (RUNS_PER_LISTING). */
export function concurrencyKey(onChainId: string): { pk: string; sk: string } {
  return { pk: `concurrency#${onChainId}`, sk: "concurrency" };
}

/**
 * Every check before any agent work, in order: the listing is resolved, its state and the caller's
 * credential read live from the chain, the execution rate rule applied, a concurrency slot taken, and a
 * per-query run reserved against the balance. When any step refuses, nothing is held and nothing
 * charged. A request whose Idempotency-Key already started a run gets that run instead.
 */
export async function admitRun(services: Services, principal: Principal, request: ExecuteRequest, options: AdmitOptions): Promise<AdmissionResult> {
  if (request.input !== undefined && request.input_uri !== undefined) throw new ApiError("invalid_request", "Send either input or input_uri, not both.");
  const access = await checkExecutionAccess(services, principal.wallet, request.agent_id);
  await options.rateLimit(access.listingId);
  const logic = await loadAgentLogic(services, access.agent);
  const manifestTimeoutMs = logic.manifest.timeout_seconds * 1000;
  const requestedMs = request.timeout_seconds === undefined ? manifestTimeoutMs : request.timeout_seconds * 1000;
  const timeoutMs = Math.min(manifestTimeoutMs, requestedMs);
  const runId = newRunId();
  const holdUntil = Date.now() + timeoutMs + 60_000;
  const wallet = principal.wallet;
  const idempotency = options.idempotency;
  // The key is claimed before any hold is taken, so a request racing its own retry never meets the
  // first one's reservation or slot as a refusal: one of them claims the key, the other follows its run.
  if (idempotency) {
    const owner = await claimIdempotencyKey(services.tables, wallet, idempotency.key, idempotency.bodyHash, runId);
    if (owner !== runId) return { kind: "existing", runId: owner, claim: claimOf(services.tables, wallet, idempotency.key, owner) };
  }
  const releaseKey = async () => {
    if (!idempotency) return;
    // A key left claimed would make every retry with it wait CLAIM_TO_RUN_MS for a run that never comes.
    await releaseIdempotencyKey(services.tables, wallet, idempotency.key, runId).catch((error: unknown) =>
      services.logger.warn("idempotency key not given back", { run_id: runId, cause: error instanceof Error ? error.message : String(error) }),
    );
  };

  // The run's secret is needed only once the agent is called, but reading it (the sealed blob, the key
  // unwrap) takes as long as the writes below: start it now, beside them. A refused admission drops it.
  const secret = readListingSecret(services, access.listingId, access.agent.kind === "connected" ? "webhook_secret" : "provider_key", access.agent as unknown as Record<string, unknown>);
  secret.catch(() => undefined);
  const perQuery = access.rentalModel === "per_query";
  // The reservation comes before the slot: a balance that cannot cover the run is a lasting refusal
  // (403), a full listing a passing one (429).
  if (perQuery) {
    try {
      await reserveRun(services, { onChainId: access.onChainId, wallet, runId, priceWei: access.priceWei, expiresAt: holdUntil + SETTLEMENT_WINDOW_MS });
    } catch (error) {
      await releaseKey();
      throw error;
    }
  }
  const releaseSlot = () => releaseLease(services.tables, concurrencyKey(access.onChainId), runId);
  try {
    const slot = await acquireLease(services.tables, concurrencyKey(access.onChainId), runId, { limit: RUNS_PER_LISTING, expiresAt: holdUntil });
    if (slot !== "acquired") {
      throw new ApiError("rate_limit_exceeded", `${RUNS_PER_LISTING} runs of this listing are already in flight; retry when one finishes.`, { headers: { "Retry-After": "1" } });
    }
    const run: RunRecord = {
      pk: `run#${runId}`,
      sk: "run",
      run_id: runId,
      agent_id: access.agent.agent_id,
      listing_id: access.listingId,
      on_chain_id: access.onChainId,
      wallet: principal.wallet.toLowerCase() as Address,
      rental_model: access.rentalModel,
      price_wei: access.priceWei.toString(),
      delivery: options.delivery ?? "sync",
      status: "running",
      cost_wei: "0",
      settlement: "none",
      streamed: "",
      priority: request.priority ?? "standard",
      timeout_ms: timeoutMs,
      created_at: new Date().toISOString(),
      // Indexed while it runs, so a run whose end was never recorded is found and finished (stale-runs.ts).
      ...runningIndex(runId, Date.now(), timeoutMs),
    };
    try {
      await createRun(services.tables, run);
    } catch (error) {
      if (isConditionalCheckFailure(error)) {
        // A request following this one's Idempotency-Key gave up waiting and barred the run id.
        throw new ApiError("service_unavailable", "This request took too long to start its run and was given up; nothing ran and nothing was charged. Retry.", { headers: { "Retry-After": "1" } });
      }
      // The put may have landed even so: a record left running would never finish.
      await finishRun(services.tables, runId, { status: "failed", output: null, streamed: "", error: { code: "internal_error", message: "The run could not be started; it was not charged." }, cost_wei: "0", duration_ms: 0, settlement: "none", finished_at: new Date().toISOString() }).catch(() => undefined);
      throw error;
    }
    return { kind: "admitted", admission: { run, access, logic, request, timeoutMs, startedAt: performance.now(), secret } };
  } catch (error) {
    if (perQuery) await releaseReservation(services, access.onChainId, wallet, runId).catch(() => undefined);
    await releaseSlot().catch(() => undefined);
    await releaseKey();
    throw error;
  }
}

type AgentOutcome = { status: "completed"; output: unknown } | { status: "failed"; error: { code: string; message: string } };

/** The run's input: the request's, or the content at input_uri (ipfs://<cid> stored with the service). */
async function resolveInput(services: Services, request: ExecuteRequest): Promise<{ ok: true; input: string | Record<string, unknown> | null } | { ok: false; message: string }> {
  if (request.input_uri === undefined) return { ok: true, input: request.input ?? null };

  const cid = request.input_uri.slice("ipfs://".length);
  const bytes = await services.blobs.get(`inputs/${cid}`) ?? (await services.blobs.get(`ipfs/${cid}`));
  if (!bytes) return { ok: false, message: `Nothing is stored at ${request.input_uri}; upload the input first (POST /v1/inputs).` };
  if (cidOf(bytes) !== cid) return { ok: false, message: `The content at ${request.input_uri} does not match its address.` };
  const text = Buffer.from(bytes).toString("utf8");
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return { ok: true, input: parsed as Record<string, unknown> };
  } catch {
    // not JSON: the text is the input
  }
  return { ok: true, input: text };
}

function emptyInputFor(schema: Record<string, unknown>): string | Record<string, unknown> | null {
  if (schema.type === "object") return {};
  if (schema.type === "string") return "";
  return null;
}

export function isContentAddress(uri: string): boolean {
  return uri.startsWith("ipfs://") && CID_SHAPE.test(uri.slice("ipfs://".length));
}

async function runDeclarative(services: Services, admission: Admission, input: string | Record<string, unknown> | null, onDelta: (delta: string) => void): Promise<AgentOutcome> {
  const { manifest } = admission.logic;
  const model = manifest.model;
  const apiKey = await admission.secret;
  if (apiKey === null && model.provider !== "self_hosted") {
    return { status: "failed", error: { code: "agent_not_configured", message: "The agent's creator has not set a model-provider key for this listing yet." } };
  }
  const payload: AgentRunPayload = {
    runId: admission.run.run_id,
    agent: {
      provider: model.provider,
      model: model.provider === "self_hosted" ? (model.model ?? "default") : model.model,
      baseUrl: model.provider === "self_hosted" ? model.endpoint_url : model.provider === "provider_a" ? services.config.PROVIDER_A_BASE_URL : services.config.PROVIDER_B_BASE_URL,
      apiKey,
      systemPrompt: manifest.system_prompt ?? "",
      tools: manifest.tools,
      outputSchema: manifest.output_schema,
    },
    task: admission.request.task,
    input,
    egress: services.egressRules,
    ...(services.config.SEARCH_API_URL ? { search: { kind: services.config.SEARCH_API_KIND, url: services.config.SEARCH_API_URL, apiKey: services.config.SEARCH_API_KEY ?? null } } : {}),
    maxSteps: MAX_TOOL_STEPS,
  };
  const result = await services.sandbox().run(
    { runId: admission.run.run_id, entry: services.runtimeEntry, payload, timeoutMs: admission.timeoutMs, memoryMb: SANDBOX_MEMORY_MB, ...agentSandboxNeeds(manifest.tools) },
    (event) => onDelta(event.delta),
  );
  if (result.status === "completed") return { status: "completed", output: (result.output as AgentRunOutput | undefined)?.output ?? null };
  const error = result.error ?? { code: "crashed", message: "the sandbox ended without a result" };
  // The runtime stops a run at its own deadline a moment before the sandbox would kill it; either way
  // the run ran out of time, and says so with one code.
  const code = error.code === "entry_error" ? (error.message === RUN_DEADLINE_REASON ? "timeout" : "agent_error") : error.code;
  return { status: "failed", error: { code, message: error.message } };
}

async function runConnected(services: Services, admission: Admission, input: string | Record<string, unknown> | null, onDelta: (delta: string) => void, stream: boolean): Promise<AgentOutcome> {
  const secret = await admission.secret;
  if (secret === null) return { status: "failed", error: { code: "agent_not_configured", message: "The agent's creator has not created its webhook signing secret yet." } };
  return callConnectedAgent({
    guard: services.egress,
    url: admission.logic.manifest.entrypoint_url!,
    secret,
    runId: admission.run.run_id,
    agentId: admission.access.agent.agent_id,
    listingId: admission.access.listingId,
    task: admission.request.task,
    input,
    timeoutMs: admission.timeoutMs,
    stream,
    onDelta,
  });
}

export interface PerformOptions {
  /** Receives each piece of output as the agent produces it. */
  onDelta?: (delta: string) => void;
  stream: boolean;
}

export interface PerformResult {
  response: RunResponse;
  /** The charge could not be confirmed yet: the output is withheld until it is — see settlement.ts. */
  settlementPending: boolean;
}

/** Writes that record a run's end are retried for this long before the run is left to the sweeps. */
const FINISH_RETRIES = { retries: 6, minTimeout: 100, maxTimeout: 4_000, factor: 2 } as const;

/** `write`, retried with backoff (a storage blip must not leave a run running or a hold taken); never
 * throws: a write that still fails is logged, and the holds it meant to release expire on their own. */
async function durably(services: Services, what: string, runId: string, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await pRetry(write, FINISH_RETRIES);
    return true;
  } catch (error) {
    services.logger.error(`${what} failed after retries`, { run_id: runId, cause: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/** The agent's answer checked against what the listing promises: size, then the output schema. A check
 * that throws (an answer too deep or too odd to serialise or validate) fails the run; it never escapes. */
function checkOutput(logic: AgentLogic, outcome: AgentOutcome, overflow: boolean): AgentOutcome {
  if (outcome.status !== "completed") return outcome;
  let size: number;
  try {
    size = overflow ? Number.POSITIVE_INFINITY : JSON.stringify(outcome.output ?? null).length;
  } catch {
    return { status: "failed", error: { code: "invalid_output", message: "The agent's output could not be read (it is nested too deeply or is not JSON)." } };
  }
  if (size > MAX_OUTPUT_CHARS) return { status: "failed", error: { code: "output_too_large", message: `The agent's output exceeds ${MAX_OUTPUT_CHARS} characters.` } };
  try {
    if (!logic.validateOutput(outcome.output)) {
      return { status: "failed", error: { code: "invalid_output", message: `The agent's output does not match its declared output schema: ${describeSchemaErrors(logic.validateOutput)}.` } };
    }
  } catch {
    return { status: "failed", error: { code: "invalid_output", message: "The agent's output could not be checked against its declared output schema." } };
  }
  return outcome;
}

/**
 * Runs an admitted task to its end: agent, output check, settlement, record. Never throws: a failure of
 * any step is a failed run, and the admission's holds (the listing slot, a per-query reservation) are
 * given back on every path.
 *
 * What a per-query run charges (docs/execution.md): output that reaches the renter is paid for, and output
 * that is not paid for does not reach the renter. A completed run is charged. A failed run is charged
 * only when part of its output was already delivered, which happens only on a stream (the deltas sent
 * before the failure); a failed synchronous run releases no output and is free.
 */
export async function performRun(services: Services, admission: Admission, options: PerformOptions): Promise<PerformResult> {
  const { run, access, logic } = admission;
  const wallet = run.wallet;
  const perQuery = access.rentalModel === "per_query";
  let streamed = "";
  let saved = "";
  let saving: Promise<void> | undefined;
  const save = () => {
    if (saving || streamed === saved) return;
    const text = streamed;
    saving = saveStreamedText(services.tables, run.run_id, text)
      .then(() => void (saved = text))
      .catch(() => undefined)
      .finally(() => void (saving = undefined));
  };
  // A synchronous per-query run keeps its text to itself until it is paid (see releasedText).
  const saver = options.stream || !perQuery ? setInterval(save, STREAM_SAVE_MS) : undefined;
  let overflow = false;
  let delivered = false;
  const onDelta = (delta: string) => {
    if (overflow) return;
    if (streamed.length + delta.length > MAX_OUTPUT_CHARS) {
      overflow = true;
      return;
    }
    streamed += delta;
    if (options.stream && delta.length > 0) delivered = true;
    try {
      options.onDelta?.(delta);
    } catch {
      // a disconnected client does not stop the run
    }
  };
  const secretForScrub = () => admission.secret.catch(() => null);

  let outcome: AgentOutcome;
  let costWei = 0n;
  let settlement: RunRecord["settlement"] = "none";
  let settlementTx: `0x${string}` | undefined;
  let settlementPending = false;
  try {
    try {
      const input = await resolveInput(services, admission.request);
      // An omitted input is checked as the empty value of the schema's type (so a schema that requires
      // fields refuses it), and reaches the agent as no input.
      if (!input.ok) outcome = { status: "failed", error: { code: "invalid_input", message: input.message } };
      else if (!logic.validateInput(input.input === null ? emptyInputFor(logic.manifest.input_schema) : input.input)) {
        outcome = { status: "failed", error: { code: "invalid_input", message: `The input does not match the agent's input schema: ${describeSchemaErrors(logic.validateInput)}.` } };
      } else {
        outcome = access.agent.kind === "connected" ? await runConnected(services, admission, input.input, onDelta, options.stream) : await runDeclarative(services, admission, input.input, onDelta);
      }
      outcome = checkOutput(logic, outcome, overflow);
    } catch (error) {
      services.logger.error("run failed unexpectedly", { run_id: run.run_id, cause: scrub(error instanceof Error ? error.message : String(error), [await secretForScrub()]) });
      outcome = { status: "failed", error: { code: "internal_error", message: "The run failed on the service's side. Retry." } };
    } finally {
      if (saver) clearInterval(saver);
    }
    if (outcome.status === "failed") {
      // The runtime and the webhook client already keep the run's secret out of their reasons; a reason
      // is scrubbed once more here, where the service itself holds the secret, before it is stored or
      // returned.
      outcome = { status: "failed", error: { code: outcome.error.code, message: scrub(outcome.error.message, [await secretForScrub()]) } };
    }

    if (perQuery) {
      const chargeable = outcome.status === "completed" || delivered;
      if (!chargeable) {
        await durably(services, "reservation release", run.run_id, () => releaseReservation(services, access.onChainId, wallet, run.run_id));
      } else {
        const charge = await settleRun(services, { runId: run.run_id, onChainId: access.onChainId, wallet, priceWei: access.priceWei });
        if (charge.outcome === "charged") {
          costWei = charge.costWei;
          settlement = "settled";
          settlementTx = charge.txHash;
        } else if (charge.outcome === "refused") {
          outcome = { status: "failed", error: { code: "settlement_refused", message: `The charge for this run was refused by the contract (${charge.contractError}); its result is not released.` } };
          settlement = "refused";
        } else {
          costWei = access.priceWei;
          settlement = "pending";
          settlementPending = true;
        }
      }
    }
  } catch (error) {
    // Only a defect reaches here (every step above turns its own failures into outcomes); the run still
    // ends failed and its holds are still given back below.
    services.logger.error("run could not be finished normally", { run_id: run.run_id, cause: scrub(error instanceof Error ? error.message : String(error), [await secretForScrub()]) });
    outcome = { status: "failed", error: { code: "internal_error", message: "The run failed on the service's side. Retry." } };
    if (perQuery && settlement === "none") await durably(services, "reservation release", run.run_id, () => releaseReservation(services, access.onChainId, wallet, run.run_id));
  }
  const durationMs = Math.round(performance.now() - admission.startedAt);

  // What the renter receives: a completed run's output; a failed run's partial text, unless the run is
  // per-query and that text was not paid for. Nothing at all while a charge is unconfirmed or refused.
  const paid = settlement === "settled";
  // (A stream's text is exactly what it delivered: paid for, or empty.)
  const released = outcome.status === "completed" ? outcome.output : !perQuery || paid || options.stream ? streamed : null;
  const output = settlement === "pending" || settlement === "refused" ? null : released;
  const finishedAt = new Date().toISOString();
  await durably(services, "run record", run.run_id, () =>
    finishRun(services.tables, run.run_id, {
      status: outcome.status,
      output: settlement === "refused" ? null : released,
      // A synchronous per-query run's text is kept only once paid (releasedText reads it then).
      streamed: !perQuery || options.stream || paid || settlement === "pending" ? streamed : "",
      ...(outcome.status === "failed" ? { error: outcome.error } : {}),
      cost_wei: costWei.toString(),
      duration_ms: durationMs,
      settlement,
      ...(settlementTx ? { settlement_tx: settlementTx } : {}),
      finished_at: finishedAt,
    }),
  );
  if (settlementPending) await durably(services, "pending settlement record", run.run_id, () => markSettlementPending(services, run.run_id));
  await durably(services, "listing slot release", run.run_id, () => releaseLease(services.tables, concurrencyKey(access.onChainId), run.run_id));
  await recordRunOutcome(services.tables, { run_id: run.run_id, on_chain_id: access.onChainId, wallet, status: outcome.status, finished_at: finishedAt }).catch((error: unknown) =>
    services.logger.warn("listing figures not updated", { run_id: run.run_id, cause: error instanceof Error ? error.message : String(error) }),
  );
  return {
    response: {
      run_id: run.run_id,
      agent_id: run.agent_id,
      status: outcome.status,
      output,
      cost_wei: costWei,
      duration_ms: durationMs,
      ...(outcome.status === "failed" ? { error: outcome.error } : {}),
    },
    settlementPending,
  };
}

/** The Run of a stored record, as the API shows it. A run whose charge is not confirmed shows no output. */
export function responseOf(record: RunRecord): RunResponse {
  const withheld = record.settlement === "pending" || record.settlement === "refused";
  return {
    run_id: record.run_id,
    agent_id: record.agent_id,
    status: record.status === "running" ? "failed" : record.status,
    output: withheld ? null : (record.output ?? null),
    cost_wei: BigInt(record.cost_wei),
    duration_ms: record.duration_ms ?? 0,
    ...(record.error ? { error: record.error } : {}),
  };
}

/** Serialises a Run with cost_wei as an exact JSON integer (wei exceed 2^53). */
export function runJson(response: RunResponse, extra: Record<string, unknown> = {}): string {
  const { cost_wei, ...rest } = response;
  const body = JSON.stringify({ ...rest, cost_wei: "__COST__", ...extra });
  return body.replace('"__COST__"', cost_wei.toString());
}

/** How long after a request claimed an Idempotency-Key its run record may take to appear (its admission:
 * the reservation and the slot) before a request following the key gives it up. */
export const CLAIM_TO_RUN_MS = 10_000;

export type ExistingRun = Extract<AdmissionResult, { kind: "existing" }>;

function retryAfterGivenUp(message: string): ApiError {
  return new ApiError("service_unavailable", message, { headers: { "Retry-After": "1" } });
}

/**
 * The run record of another request with the same Idempotency-Key, once it exists. Throws 503 (retry;
 * the key is free again) when there is no run to follow: that request was refused before its run
 * started and gave the key back, or its claim is older than `appearWithinMs` with no run, in which case
 * the run id is barred first (barRun), so that the run can no longer start once the caller is told
 * nothing ran; a run that started in the meantime is followed instead.
 */
export async function claimedRun(services: Services, existing: Pick<ExistingRun, "runId" | "claim">, appearWithinMs = CLAIM_TO_RUN_MS): Promise<RunRecord> {
  for (;;) {
    const record = await getRun(services.tables, existing.runId);
    if (record) return record;
    const claimedAt = await existing.claim.claimedAt();
    if (claimedAt === null) {
      throw retryAfterGivenUp("The first request with this Idempotency-Key was refused before its run started, so nothing is stored under the key; retry.");
    }
    if (Date.now() - claimedAt >= appearWithinMs) {
      if ((await barRun(services.tables, existing.runId)) === "barred") {
        await existing.claim.release();
        throw retryAfterGivenUp("The first request with this Idempotency-Key did not start its run in time and was given up; nothing ran and nothing was charged under the key. Retry.");
      }
      continue; // its run started after all: follow it
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until another request's run with the same Idempotency-Key is no longer running (throws as
 * claimedRun does; the record is still running when `timeoutMs` ran out). */
export async function waitForRun(services: Services, existing: Pick<ExistingRun, "runId" | "claim">, timeoutMs: number, pollMs = 100): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  let record = await claimedRun(services, existing);
  while (record.status === "running" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    record = (await getRun(services.tables, existing.runId)) ?? record;
  }
  return record;
}
