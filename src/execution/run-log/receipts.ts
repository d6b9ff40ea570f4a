// A finished run's receipt: the fields the contract hashes into its leaf (`runReceiptLeaf`), checked
// before a run is put in a batch, since a leaf the contract cannot reproduce would never verify.
import { isAddress, type Hex } from "viem";
import { runRef, type RunRecord } from "../runs/run.ts";
import { runReceiptLeaf, type RunReceiptFields } from "./merkle.ts";

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

type ReceiptSource = Pick<RunRecord, "run_id" | "on_chain_id" | "wallet" | "status" | "cost_wei" | "duration_ms">;

/** The receipt fields of a finished run. Throws RangeError for a run that has no valid receipt. */
export function runReceiptFields(run: ReceiptSource): RunReceiptFields {
  if (run.status !== "completed" && run.status !== "failed") throw new RangeError(`run ${run.run_id} has not finished`);
  if (typeof run.on_chain_id !== "string" || !BYTES32.test(run.on_chain_id)) throw new RangeError(`run ${run.run_id} has no valid on-chain listing id`);
  if (typeof run.wallet !== "string" || !isAddress(run.wallet, { strict: false })) throw new RangeError(`run ${run.run_id} has no valid renter wallet`);
  if (typeof run.cost_wei !== "string" || !DECIMAL.test(run.cost_wei)) throw new RangeError(`run ${run.run_id} has no valid cost_wei`);
  if (!Number.isSafeInteger(run.duration_ms) || run.duration_ms! < 0) throw new RangeError(`run ${run.run_id} has no valid duration_ms`);
  return {
    runId: runRef(run.run_id),
    listingId: run.on_chain_id,
    renter: run.wallet,
    status: run.status === "completed" ? 0 : 1,
    costWei: BigInt(run.cost_wei),
    durationMs: BigInt(run.duration_ms!),
  };
}

/** The receipt leaf of a finished run (the contract's runReceiptLeaf of its fields). */
export function runReceiptLeafOf(run: ReceiptSource): Hex {
  return runReceiptLeaf(runReceiptFields(run));
}

/** Whether a run has a valid receipt (runReceiptFields would not throw). */
export function hasValidReceipt(run: ReceiptSource): boolean {
  try {
    runReceiptFields(run);
    return true;
  } catch {
    return false;
  }
}
