// The marketplace events the analytics count, decoded from the logs the indexer reads (the Marketplace's
// and the TokenMarketplace's, which emits the Marketplace's events with amounts in the listing's token):
// purchases, renewals, charges (gross and fee as the event states them, so revenue is exact to the
// smallest unit), x402 payments settled (PaymentsSettled: one event a group of a batch, a fact for each
// of its payments, named by the settlement transaction's input), deposits, refunds of unspent balances, and the creator's withdrawals.
import { parseEventLogs, type Log } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { settledPaymentsOfTransaction } from "../chain/settle-payments.ts";
import { applyFact, chainTargets, chainToken, type ChainFact, type MoneyEvent } from "./rollups.ts";
import { getRenter } from "./rollup.store.ts";

type TokenMarketplaceEvent = Extract<(typeof tokenMarketplaceAbi)[number], { type: "event" }>;
/** The Marketplace's events (both contracts emit them) and the TokenMarketplace's x402 settlement. */
const COUNTED_ABI = [...marketplaceAbi, ...tokenMarketplaceAbi.filter((item): item is Extract<TokenMarketplaceEvent, { name: "PaymentsSettled" }> => item.type === "event" && item.name === "PaymentsSettled")];

/** `<block>:<log index>`, zero-padded so positions sort as strings. */
export function positionOf(block: bigint, logIndex: number): string {
  return `${block.toString().padStart(12, "0")}:${logIndex.toString().padStart(6, "0")}`;
}

/** The counted events of `logs`, in chain order, with their block's time (read when the log lacks it). */
export async function chainFactsFromLogs(chain: Pick<ChainClient, "client">, logs: Log[]): Promise<Omit<ChainFact, "first">[]> {
  const facts: Omit<ChainFact, "first">[] = [];
  const times = new Map<bigint, string>();
  const timeOf = async (block: bigint, stamp: bigint | null | undefined): Promise<string> => {
    const known = times.get(block);
    if (known) return known;
    const seconds = typeof stamp === "bigint" ? stamp : (await chain.client.getBlock({ blockNumber: block })).timestamp;
    const iso = new Date(Number(seconds) * 1000).toISOString();
    times.set(block, iso);
    return iso;
  };
  for (const event of parseEventLogs({ abi: COUNTED_ABI, logs, strict: true })) {
    let listing: `0x${string}`;
    let wallet: string | undefined;
    let money: MoneyEvent;
    switch (event.eventName) {
      case "OneTimePurchased":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "purchase", model: "one_time", gross: event.args.price, fee: event.args.fee };
        break;
      case "SubscriptionPurchased":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "purchase", model: "subscription", gross: event.args.paid, fee: event.args.fee, expires_at: event.args.expiresAt };
        break;
      case "SubscriptionRenewed":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "renewal", gross: event.args.paid, fee: event.args.fee, expires_at: event.args.expiresAt, paid_from: event.args.expiresAt - event.args.durationSeconds };
        break;
      case "PerQueryPurchased":
        ({ listingId: listing, buyer: wallet } = event.args);
        // The deposit is the renter's balance, not revenue: it becomes revenue charge by charge.
        facts.push({ id: `${event.transactionHash}:${event.logIndex}:p`, on_chain_id: listing, wallet, at: await timeOf(event.blockNumber!, blockStamp(event)), position: positionOf(event.blockNumber!, event.logIndex!), event: { kind: "purchase", model: "per_query", gross: 0n, fee: 0n } });
        money = { kind: "deposit", amount: event.args.deposit, purchase: true };
        break;
      case "BalanceToppedUp":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "deposit", amount: event.args.amount, purchase: false };
        break;
      case "QueryConsumed":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "charge", gross: event.args.price, fee: event.args.fee };
        break;
      case "PaymentsSettled": {
        // x402 payments of one listing, each the payer's authorization moving `amount`, the fee out of it
        // (decisions 0255, 0256, 0274): a fact for each, under the log's id and the payment's place in it,
        // its payer read from the transaction's input.
        const at = await timeOf(event.blockNumber!, blockStamp(event));
        const position = positionOf(event.blockNumber!, event.logIndex!);
        const { listingId, amount, fee } = event.args;
        for (const payment of await settledPaymentsOfTransaction(chain.client, event.transactionHash!, event.blockHash)) {
          if (payment.logIndex !== event.logIndex) continue;
          facts.push({ id: `${event.transactionHash}:${event.logIndex}:${payment.index}`, on_chain_id: listingId, wallet: payment.payer.toLowerCase(), at, position, event: { kind: "payment", gross: amount, fee } });
        }
        continue;
      }
      case "UnspentBalanceWithdrawn":
        ({ listingId: listing, buyer: wallet } = event.args);
        money = { kind: "refund", amount: event.args.amount };
        break;
      case "EarningsWithdrawn":
        listing = event.args.listingId;
        wallet = undefined;
        money = { kind: "earnings_withdrawn", amount: event.args.amount };
        break;
      default:
        continue;
    }
    facts.push({
      id: `${event.transactionHash}:${event.logIndex}`,
      on_chain_id: listing.toLowerCase() as `0x${string}`,
      ...(wallet ? { wallet: wallet.toLowerCase() } : {}),
      at: await timeOf(event.blockNumber!, blockStamp(event)),
      position: positionOf(event.blockNumber!, event.logIndex!),
      event: money,
    });
  }
  for (const fact of facts) fact.on_chain_id = fact.on_chain_id.toLowerCase() as `0x${string}`;
  return facts;
}

function blockStamp(event: unknown): bigint | null | undefined {
  return (event as { blockTimestamp?: bigint | null }).blockTimestamp;
}

/** Whether a purchase at `position` is the wallet's first rental of the listing, from its renter item. */
export function isFirstPurchase(firstPosition: string | undefined, position: string): boolean {
  return firstPosition === undefined || firstPosition >= position;
}

/** Counts the events of `logs` in the roll-ups, in chain order (each once, however often replayed). */
export async function recordChainLogs(tables: Tables, chain: Pick<ChainClient, "client">, logs: Log[]): Promise<number> {
  const facts = await chainFactsFromLogs(chain, logs);
  for (const fact of facts) {
    let first: boolean | undefined;
    if (fact.event.kind === "purchase" && fact.wallet) {
      const renter = await getRenter(tables, fact.on_chain_id, fact.wallet);
      first = isFirstPurchase(typeof renter?.first_position === "string" ? renter.first_position : undefined, fact.position);
    }
    await applyFact(tables, chainToken(fact.id), chainTargets({ ...fact, ...(first === undefined ? {} : { first }) }), { listing: fact.on_chain_id });
  }
  return facts.length;
}
