// What the chain decided for charges, by their run references: the QueryConsumed (charged) and
// QueryRefused (refused, with the contract's error) events of the marketplace in a block range, fetched
// with one eth_getLogs naming the references (the events' third topic), or, for more than a hundred,
// one for every charge event of the range, matched here; the range is read in pages (get-paged-logs.ts). A reference with neither event in the range has
// not been decided there. Where a TokenMarketplace is configured, the same request reads its logs too:
// its QueryConsumed and QueryRefused (same topics), and an x402 payment's PaymentSettled (charged: the
// amount) and PaymentRefused (refused), so every kind of charge is decided by one read.
import { formatLog, parseEventLogs, toEventSelector, type AbiEvent, type Hex, type Log } from "viem";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { getPagedLogs } from "./get-paged-logs.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { refusalName } from "./consume-queries.ts";

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
const PAYMENT_SETTLED = toEventSelector(tokenEvent("PaymentSettled"));
const PAYMENT_REFUSED = toEventSelector(tokenEvent("PaymentRefused"));
/** The most references one request names: providers bound how many values one topic position may list. */
const REFS_PER_REQUEST = 100;

/** Decides from a receipt's or a range's marketplace logs: the first decision of a reference stands, and a
 * charge stands over a refusal (a charge is money moved; the settler never sends a decided reference again). */
export function chargeDecisionsOf(logs: readonly Log[], marketplace: Hex | readonly Hex[], refs?: ReadonlySet<string>): GetChargeOutcomesReturnType {
  const contracts = new Set((typeof marketplace === "string" ? [marketplace] : marketplace).map((a) => a.toLowerCase()));
  const ours = logs.filter((log) => contracts.has(log.address.toLowerCase()));
  const decisions = new Map<Hex, ChargeDecision>();
  const events = parseEventLogs({ abi: [...marketplaceAbi, ...tokenMarketplaceAbi], logs: ours as Log[], eventName: ["QueryConsumed", "QueryRefused", "PaymentSettled", "PaymentRefused"] as never, strict: true }) as unknown as {
    eventName: "QueryConsumed" | "QueryRefused" | "PaymentSettled" | "PaymentRefused";
    args: { runRef: Hex; price?: bigint; amount?: bigint; reason?: Hex };
    transactionHash: Hex | null;
    blockNumber: bigint | null;
  }[];
  for (const event of events) {
    const ref = event.args.runRef.toLowerCase() as Hex;
    if (refs && !refs.has(ref)) continue;
    if (event.transactionHash === null || event.blockNumber === null) continue;
    const earlier = decisions.get(ref);
    if (event.eventName === "QueryConsumed" || event.eventName === "PaymentSettled") {
      const price = event.eventName === "QueryConsumed" ? event.args.price! : event.args.amount!;
      if (earlier?.kind !== "charged") decisions.set(ref, { kind: "charged", priceWei: price, txHash: event.transactionHash, blockNumber: event.blockNumber });
    } else if (!earlier) {
      decisions.set(ref, { kind: "refused", contractError: refusalName(event.args.reason!), txHash: event.transactionHash, blockNumber: event.blockNumber });
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
  let logs: Log[];
  try {
    // Raw topics: viem's getLogs filters arguments of one event only, and this asks for two.
    // In pages of the range, each bounded in time and split when its answer is too large (a read of
    // every charge event since the deployment block is megabytes on a busy chain).
    logs = await getPagedLogs(fromBlock, toBlock, async (from, to) =>
      (await chain.client.request({
        method: "eth_getLogs",
        params: [{ address: addresses.length === 1 ? addresses[0] : addresses, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [addresses.length === 1 ? [CONSUMED, REFUSED] : [CONSUMED, REFUSED, PAYMENT_SETTLED, PAYMENT_REFUSED], null, null, ...(unique.length <= REFS_PER_REQUEST ? [unique] : [])] }],
      })) as unknown as Log[],
    );
  } catch (error) {
    throw new ChainReadError("charge events", { cause: error });
  }
  for (const [ref, decision] of chargeDecisionsOf(logs.map((log) => formatLog(log as never)), addresses, wanted)) decisions.set(ref, decision);
  return decisions;
}
