// The run log's write (`logRuns`), sent by the protocol authority: records one Merkle root of run
// receipts. The batch index is read from the transaction's RunsLogged event for that root.
import { parseEventLogs, type TransactionReceipt } from "viem";
import type { AuthoritySigner, AuthorityRevertError, AuthorityUnavailableError } from "./authority.ts";
import type { ChainClient } from "./client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface LogRunsParameters {
  root: `0x${string}`;
  /** Runs under the root. */
  count: number;
}

export interface LogRunsReturnType {
  receipt: TransactionReceipt;
  /** The batch index of the marketplace's RunsLogged event for the root in this transaction, when it carries one. */
  batchIndex: number | undefined;
}

/** The contract refused the batch (AuthorityRevertError), or the outcome is unknown (AuthorityUnavailableError). */
export type LogRunsErrorType = AuthorityRevertError | AuthorityUnavailableError;

/** `chain` names the marketplace whose event counts (the receipt may carry others' logs). */
export async function logRuns(chain: ChainClient, authority: AuthoritySigner, { root, count }: LogRunsParameters): Promise<LogRunsReturnType> {
  const { receipt } = await authority.write("logRuns", [root, count]);
  const marketplace = chain.marketplace.toLowerCase();
  const event = parseEventLogs({ abi: marketplaceAbi, eventName: "RunsLogged", logs: receipt.logs }).find(
    (log) => log.address.toLowerCase() === marketplace && log.args.root.toLowerCase() === root.toLowerCase(),
  );
  return { receipt, batchIndex: event ? Number(event.args.batchIndex) : undefined };
}
