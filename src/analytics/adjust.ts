// A run's counted outcome, changed after the fact: when a chain reorganisation changes what a settled
// run was charged (charged again in another transaction at another price, or refused when sent again),
// the run's figures follow (decision 0153). A run's fact (`run:<run_id>`) keeps the outcome it counted
// (`outcome`, and `outcome_version`); an adjustment is a fact of its own, `adjust:<run_id>:<epoch>:<n>`,
// that adds the difference between the counted outcome and the new one, then moves the run's fact to the
// new outcome, version n. Two callers adjusting the same run reach the same token, so each difference is
// added once; a caller that finds its token applied by another takes that adjustment's outcome as
// counted and compares again.
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { FinishedRunStatus, RentalModel, RunFailureCode } from "@agent-rental/core/vocabulary";
import { applyFact, runTargets, runToken, type SettledRunFact } from "./rollups.ts";
import { getFact, setFactOutcome, type RollupTarget } from "./rollup.store.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A settled run's outcome as its fact stores it (JSON; wei as a decimal string). */
export function encodeOutcome(run: SettledRunFact): string {
  return JSON.stringify({
    run_id: run.run_id,
    on_chain_id: run.on_chain_id,
    wallet: run.wallet.toLowerCase(),
    rental_model: run.rental_model,
    status: run.status,
    ...(run.failure_code ? { failure_code: run.failure_code } : {}),
    duration_ms: run.duration_ms,
    ...(run.first_output_ms === undefined ? {} : { first_output_ms: run.first_output_ms }),
    cost_wei: run.cost_wei.toString(),
    finished_at: run.finished_at,
  });
}

export function decodeOutcome(text: string): SettledRunFact {
  const o = JSON.parse(text) as Omit<SettledRunFact, "cost_wei"> & { cost_wei: string; status: FinishedRunStatus; rental_model: RentalModel; failure_code?: RunFailureCode };
  return { ...o, cost_wei: BigInt(o.cost_wei) };
}

/** What moving a run's figures from `before` to `after` adds (counters that cancel left out). */
export function outcomeDelta(before: SettledRunFact, after: SettledRunFact): RollupTarget[] {
  const merged = new Map<string, RollupTarget>();
  const fold = (targets: RollupTarget[], sign: bigint) => {
    for (const target of targets) {
      const key = `${target.pk}|${target.sk}`;
      const into = merged.get(key) ?? { pk: target.pk, sk: target.sk, add: {} };
      for (const [name, amount] of Object.entries(target.add)) into.add[name] = (into.add[name] ?? 0n) + sign * amount;
      merged.set(key, into);
    }
  };
  fold(runTargets(after), 1n);
  fold(runTargets(before), -1n);
  const out: RollupTarget[] = [];
  for (const target of merged.values()) {
    const add = Object.fromEntries(Object.entries(target.add).filter(([, amount]) => amount !== 0n));
    if (Object.keys(add).length > 0) out.push({ pk: target.pk, sk: target.sk, add });
  }
  return out;
}

/**
 * Makes a settled run's figures those of its new outcome `run` (after a reorganisation changed its
 * charge): adds the difference from what was counted, once, however many callers and retries. A run
 * never counted is counted now. Resolves once the figures are `run`'s: "counted" (first count),
 * "adjusted", or "unchanged" (already counted as `run`). Throws on a storage failure (call it again).
 */
export async function adjustRunOutcome(tables: Tables, run: SettledRunFact): Promise<"counted" | "adjusted" | "unchanged"> {
  const token = runToken(run.run_id);
  let result: "adjusted" | "unchanged" = "unchanged";
  for (;;) {
    const fact = await getFact(tables, token);
    if (!fact) {
      if ((await applyFact(tables, token, runTargets(run), { listing: run.on_chain_id, detail: { outcome: encodeOutcome(run) } })) === "applied") return "counted";
      continue;
    }
    if (!fact.outcome) throw new Error(`run ${run.run_id}'s counted outcome is not recorded: rebuild the listing's analytics`);
    const counted = decodeOutcome(fact.outcome);
    if (fact.state !== "applied") {
      // Counted by a claimant that may have stopped: finish its count (its own outcome) first.
      if (fact.claimed_until > Date.now()) await sleep(20);
      else await applyFact(tables, token, runTargets(counted), { listing: run.on_chain_id });
      continue;
    }
    if (encodeOutcome(counted) === encodeOutcome(run)) return result;
    const version = fact.outcome_version ?? 0;
    const adjustToken = `adjust:${run.run_id}:${fact.epoch ?? ""}:${version + 1}`;
    let outcome = encodeOutcome(run);
    if ((await applyFact(tables, adjustToken, outcomeDelta(counted, run), { listing: run.on_chain_id, detail: { outcome } })) === "already") {
      outcome = (await getFact(tables, adjustToken))?.outcome ?? outcome;
    }
    await setFactOutcome(tables, token, outcome, version);
    result = "adjusted";
  }
}
