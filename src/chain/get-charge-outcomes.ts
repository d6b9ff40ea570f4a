// What the chain decided for charges, by their run references: the QueryConsumed (charged) and
// QueryRefused (refused, with the contract's error) events of the marketplace in a block range, fetched
// with one eth_getLogs naming the references (the events' third topic), or, for more than a hundred,
// one for every charge event of the range, matched here; the range is read in pages (get-paged-logs.ts). A reference with neither event in the range has
// not been decided there. Where a TokenMarketplace is configured, the same request reads its logs too:
// its QueryConsumed and QueryRefused (same topics) and an x402 payment's PaymentRefused (refused). Its
// settled payments are counted a group of a batch at a time, in PaymentsSettled events that name no run
// (decisions 0256, 0274): a second request of each page reads every PaymentsSettled of the range, and
// each settlement transaction's input and receipt name the runs it settled (charged: the amount).
import { formatLog, parseEventLogs, toEventSelector, type AbiEvent, type Hex, type Log } from "viem";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { getPagedLogs } from "./get-paged-logs.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { refusalName } from "./consume-queries.ts";
import { settledPaymentsOfTransaction } from "./settle-payments.ts";

export type ChargeDecision =
  | { kind: "charged"; priceWei: bigint; txHash: Hex; blockNumber: bigint }
  | { kind: "refused"; contractError: string; txHash: Hex; blockNumber: bigint };

export interface GetChargeOutcomesParameters {
  /** The charges' run references (bytes32). */
  refs: readonly Hex[];
  fromBlock: bigint;
  toBlock: bigint;
}

/** Decisions by reference (lower-case), for the references that have one in the range. */
export type GetChargeOutcomesReturnType = Map<Hex, ChargeDecision>;

/** The chain did not answer. */
export type GetChargeOutcomesErrorType = ChainReadError;

const eventNamed = (name: string) => marketplaceAbi.find((item) => item.type === "event" && item.name === name) as AbiEvent;
const CONSUMED = toEventSelector(eventNamed("QueryConsumed"));
const REFUSED = toEventSelector(eventNamed("QueryRefused"));
const tokenEvent = (name: string) => tokenMarketplaceAbi.find((item) => item.type === "event" && item.name === name) as AbiEvent;
const PAYMENTS_SETTLED = toEventSelector(tokenEvent("PaymentsSettled"));
const PAYMENT_REFUSED = toEventSelector(tokenEvent("PaymentRefused"));
/** The most references one request names: providers bound how many values one topic position may list. */
const REFS_PER_REQUEST = 100;

/** The runs each PaymentsSettled settled, by `<transaction hash>:<log index>` (lower-case). */
export type SettledRuns = ReadonlyMap<string, readonly Hex[]>;

/** Decides from a receipt's or a range's marketplace logs: the first decision of a reference stands, and a
 * charge stands over a refusal (a charge is money moved; the settler never sends a decided reference again).
 * A PaymentsSettled decides the runs `settled` gives for it. */
export function chargeDecisionsOf(logs: readonly Log[], marketplace: Hex | readonly Hex[], refs?: ReadonlySet<string>, settled: SettledRuns = new Map()): GetChargeOutcomesReturnType {
  const contracts = new Set((typeof marketplace === "string" ? [marketplace] : marketplace).map((a) => a.toLowerCase()));
  const ours = logs.filter((log) => contracts.has(log.address.toLowerCase()));
  const decisions = new Map<Hex, ChargeDecision>();
  const events = parseEventLogs({ abi: [...marketplaceAbi, ...tokenMarketplaceAbi], logs: ours as Log[], eventName: ["QueryConsumed", "QueryRefused", "PaymentsSettled", "PaymentRefused"] as never, strict: true }) as unknown as {
    eventName: "QueryConsumed" | "QueryRefused" | "PaymentsSettled" | "PaymentRefused";
    args: { runRef?: Hex; price?: bigint; amount?: bigint; reason?: Hex };
    transactionHash: Hex | null;
    blockNumber: bigint | null;
    logIndex: number | null;
  }[];
  for (const event of events) {
    const { transactionHash: txHash, blockNumber } = event;
    if (txHash === null || blockNumber === null) continue;
    // A PaymentsSettled decides each of its payments' runs; the other events one run each.
    const decided = event.eventName === "PaymentsSettled" ? (settled.get(`${txHash}:${event.logIndex}`.toLowerCase()) ?? []) : [event.args.runRef!];
    for (const runRef of decided) {
      const ref = runRef.toLowerCase() as Hex;
      if (refs && !refs.has(ref)) continue;
      const earlier = decisions.get(ref);
      if (event.eventName === "QueryConsumed" || event.eventName === "PaymentsSettled") {
        const price = event.eventName === "QueryConsumed" ? event.args.price! : event.args.amount!;
        if (earlier?.kind !== "charged") decisions.set(ref, { kind: "charged", priceWei: price, txHash, blockNumber });
      } else if (!earlier) {
        decisions.set(ref, { kind: "refused", contractError: refusalName(event.args.reason!), txHash, blockNumber });
      }
    }
  }
  return decisions;
}

/** Throws ChainReadError when the chain does not answer. */
export async function getChargeOutcomes(chain: ChainClient, { refs, fromBlock, toBlock }: GetChargeOutcomesParameters): Promise<GetChargeOutcomesReturnType> {
  const decisions: GetChargeOutcomesReturnType = new Map();
  if (refs.length === 0 || toBlock < fromBlock) return decisions;
  const unique = [...new Set(refs.map((ref) => ref.toLowerCase() as Hex))];
  const wanted = new Set<string>(unique);
  const addresses: Hex[] = chain.tokenMarketplace ? [chain.marketplace, chain.tokenMarketplace] : [chain.marketplace];
  const tokenMarketplace = chain.tokenMarketplace;
  const byRef = unique.length <= REFS_PER_REQUEST;
  // The events that name the run in their third topic; without a filter by reference, the
  // PaymentsSettled events come in the same read. (A filter of more topics than a log has excludes it,
  // so the unfiltered read names the first topic only.)
  const named = tokenMarketplace ? [CONSUMED, REFUSED, PAYMENT_REFUSED, ...(byRef ? [] : [PAYMENTS_SETTLED])] : [CONSUMED, REFUSED];
  const read = (from: bigint, to: bigint, address: Hex | Hex[], topics: unknown[]) =>
    chain.client.request({ method: "eth_getLogs", params: [{ address, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics }] } as never) as Promise<Log[]>;
  let logs: Log[];
  try {
    // Raw topics: viem's getLogs filters arguments of one event only, and this asks for several.
    // In pages of the range, each bounded in time and split when its answer is too large (a read of
    // every charge event since the deployment block is megabytes on a busy chain).
    logs = await getPagedLogs(fromBlock, toBlock, async (from, to) => [
      ...(await read(from, to, addresses.length === 1 ? addresses[0]! : addresses, byRef ? [named, null, null, unique] : [named])),
      ...(tokenMarketplace && byRef ? await read(from, to, tokenMarketplace, [[PAYMENTS_SETTLED]]) : []),
    ]);
  } catch (error) {
    throw new ChainReadError("charge events", { cause: error });
  }
  // In chain order: a page's two reads are put back in it.
  const ordered = logs.map((log) => formatLog(log as never) as Log).sort((a, b) => (a.blockNumber === b.blockNumber ? (a.logIndex ?? 0) - (b.logIndex ?? 0) : a.blockNumber! < b.blockNumber! ? -1 : 1));
  // The runs of each settlement transaction's PaymentsSettled, from its input and receipt.
  const settled = new Map<string, Hex[]>();
  const settlements = new Map<Hex, Hex | null>();
  for (const log of ordered) if (log.topics[0] === PAYMENTS_SETTLED && log.transactionHash) settlements.set(log.transactionHash, log.blockHash);
  try {
    for (const [hash, blockHash] of settlements) {
      for (const payment of await settledPaymentsOfTransaction(chain.client, hash, blockHash)) {
        const key = `${hash}:${payment.logIndex}`.toLowerCase();
        const runs = settled.get(key);
        if (runs) runs.push(payment.runRef);
        else settled.set(key, [payment.runRef]);
      }
    }
  } catch (error) {
    throw new ChainReadError("x402 settlement transactions", { cause: error });
  }
  for (const [ref, decision] of chargeDecisionsOf(ordered, addresses, wanted, settled)) decisions.set(ref, decision);
  return decisions;
}
