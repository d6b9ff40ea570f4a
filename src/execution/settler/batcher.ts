// The batcher: the charges the settler holds, from the message the queue hands it to the deletion of that
// message once the chain has decided the charge. It chooses each batch (oldest first, checked against
// the chain when it was handed over again, as many as the gas allows) and takes back a batch that was
// not mined. Its messages come from the intake (intake.ts); its batches go out through the sender
// (sender.ts).
import type { Hex } from "viem";
import type { QueueMessage } from "../../adapters/queue/sqs.ts";
import { getChargeOutcomes } from "../../chain/get-charge-outcomes.ts";
import { chargeKindOf, parseChargeMessage, type ChargeKind, type ChargeMessage } from "../money/charge-message.ts";
import { tokenPaymentOf, type TokenPayment } from "../../chain/settle-payments.ts";
import type { Charge, GasModel } from "./batch.ts";
import { message, type PassContext } from "./context.ts";

export interface Held {
  charge: Charge;
  /** Which batch it goes in (the Marketplace's consumeQueries, the TokenMarketplace's, or its
   * settlePayments); a batch holds one kind. */
  kind: ChargeKind;
  /** An x402 payment's transfer, as settlePayments takes it (kind "x402"). */
  payment?: TokenPayment;
  message: ChargeMessage;
  messages: QueueMessage[];
  runIds: Set<string>;
  /** Checked against the chain before it is sent: handed over again (received more than once, put back
   * after a dropped transaction) or by a settlement pass, or from an earlier settler. Decided when it is
   * sent (the head is known then), from `since` and this flag. */
  check: boolean;
  /** The first block the charge can be in, when the message says. */
  since: bigint | undefined;
  receivedAt: number;
  /** Not sent before this time (a charge that reverted on its own). */
  retryAt: number;
  /** Its block left the chain once (a reorganisation). */
  reorged?: boolean;
  /** In a mined block not yet final (its message is kept until it is). */
  included?: boolean;
}

/** Another settler's charge that a fresh one receives is older than its `since_block` by at least this. */
const FRESH_BLOCKS = 4n;

export interface Batcher {
  /** Charges waiting to be sent. */
  readonly waiting: number;
  /** Charges of one kind waiting to be sent. */
  waitingOf(kind: ChargeKind): number;
  /** Charges held in memory: waiting, or in a transaction not yet mined. */
  held(): number;
  /** Takes a message from the queue (a charge, or one to drop). */
  accept(m: QueueMessage): Promise<void>;
  /** The charges of the next batch at `head` (at most `limit`, within `gasCap`), the ones found decided
   * on the chain already settled; undefined when none is due (or the chain could not be checked). */
  choose(head: bigint, limit: number, gasCap: bigint, gas: GasModel, kind?: ChargeKind): Promise<Held[] | undefined>;
  /** Charges back to the front (a batch that was not mined, or not sent); `check`: read the chain for
   * them before they are sent again. */
  putBack(entries: Held[], check: boolean): void;
  /** Charges decided: their messages go, with every duplicate. */
  settle(entries: Held[]): void;
  /** Every message held (kept hidden on the queue while held). */
  messages(): QueueMessage[];
  /** When the oldest charge held and not yet in a block was received (undefined: none). */
  oldestWaiting(): number | undefined;
  /** The messages of the charges not decided (handed back to the queue when the settler stops). */
  undecided(): QueueMessage[];
  /** Settles once every deletion started so far has. */
  deleted(): Promise<unknown>;
}

/**
 * The batcher of one settler run. `inFlight` counts the charges the sender holds in transactions.
 *
 * @example
 * const batcher = createBatcher(context, { queueUrl, inFlight: () => sender.charges() });
 * const batch = await batcher.choose(head, 1_000, gasCap, gas);
 */
export function createBatcher(context: PassContext, options: { queueUrl: string; inFlight(): number }): Batcher {
  const { services, tally } = context;
  const { queue, logger, config, chain } = services;
  const buffer = new Map<Hex, Held>();
  const byRef = new Map<Hex, Held>();
  const deletions = new Set<Promise<void>>();

  const discard = async (m: QueueMessage, why: string, fields: Record<string, unknown>) => {
    tally.discarded++;
    logger.error(`settlement message dropped: ${why}`, { message_id: m.id, ...fields });
    await queue.deleteMany(options.queueUrl, [m]).catch(() => undefined);
  };

  const settle = (entries: Held[]) => {
    for (const entry of entries) byRef.delete(entry.charge.runRef);
    const messages = entries.flatMap((entry) => entry.messages);
    if (messages.length === 0) return;
    // The deletes run beside the loop (hundreds of messages take a while, and the next batch must not
    // wait for them); a message not deleted comes back later and is found decided.
    const deletion = queue
      .deleteMany(options.queueUrl, messages)
      .then((failed) => {
        if (failed.length) logger.warn("settled charges' messages not deleted; they come back and are found decided", { messages: failed.length });
      })
      .catch((error: unknown) => logger.warn("settled charges' messages not deleted; they come back and are found decided", { cause: message(error) }))
      .finally(() => deletions.delete(deletion));
    deletions.add(deletion);
  };

  /** Reads the chain for the charges that need it; settles the decided ones and returns the rest
   * (undefined when the chain could not be read). */
  const undecided = async (chosen: Held[], head: bigint): Promise<Held[] | undefined> => {
    // A charge is checked unless it is fresh: handed over by a run in the last few blocks, once.
    const checks = chosen.filter((entry) => entry.check || entry.since === undefined || entry.since + FRESH_BLOCKS < head);
    if (checks.length === 0) return chosen;
    const from = checks.reduce((min, e) => {
      const since = e.since ?? config.MARKETPLACE_DEPLOY_BLOCK;
      return since < min ? since : min;
    }, head);
    let decided: Awaited<ReturnType<typeof getChargeOutcomes>>;
    try {
      decided = await getChargeOutcomes(chain, { refs: checks.map((e) => e.charge.runRef), fromBlock: from, toBlock: head });
    } catch (error) {
      logger.warn("settler could not check charges against the chain; it tries again", { cause: message(error) });
      return undefined;
    }
    const found = checks.filter((e) => decided.has(e.charge.runRef));
    for (const entry of found) buffer.delete(entry.charge.runRef);
    tally.skipped += found.length;
    settle(found);
    // Checked now: sent under this head, it is not checked again unless it comes back.
    for (const entry of checks) (entry.check = false), (entry.since = head);
    return chosen.filter((e) => !decided.has(e.charge.runRef));
  };

  return {
    get waiting() {
      return buffer.size;
    },
    waitingOf: (kind) => {
      let n = 0;
      for (const entry of buffer.values()) if (entry.kind === kind) n++;
      return n;
    },
    held: () => buffer.size + options.inFlight(),
    async accept(m) {
      const parsed = parseChargeMessage(m.body);
      if (!parsed.ok) return discard(m, "it is not a charge", { reason: parsed.reason });
      const msg = parsed.message;
      const kind = chargeKindOf(msg);
      if (kind !== "eth" && !chain.tokenMarketplace) return discard(m, "it is a token listing's charge and no TokenMarketplace is configured", { run_id: msg.run_id });
      if (msg.not_after !== undefined && Date.now() > msg.not_after) return discard(m, "its run may have been finished by the stale-run sweep meanwhile", { run_id: msg.run_id });
      const existing = byRef.get(msg.ref);
      if (existing) {
        existing.messages.push(m);
        existing.runIds.add(msg.run_id);
        return;
      }
      const entry: Held = {
        charge: { listingId: msg.listing, buyer: msg.buyer, runRef: msg.ref, maxPrice: BigInt(msg.max_price) },
        kind,
        ...(msg.payment
          ? { payment: tokenPaymentOf(msg.listing, msg.ref, { from: msg.buyer, value: msg.max_price, validAfter: msg.payment.valid_after, validBefore: msg.payment.valid_before, nonce: msg.payment.nonce }, msg.payment.signature) }
          : {}),
        message: msg,
        messages: [m],
        runIds: new Set([msg.run_id]),
        check: m.receiveCount > 1,
        since: msg.since_block === undefined ? undefined : BigInt(msg.since_block),
        receivedAt: Date.now(),
        retryAt: 0,
      };
      buffer.set(msg.ref, entry);
      byRef.set(msg.ref, entry);
    },
    async choose(head, limit, gasCap, gas, kind = "eth") {
      const now = Date.now();
      const ready = [...buffer.values()].filter((entry) => entry.retryAt <= now && entry.kind === kind);
      const chosen = await undecided(ready.slice(0, limit), head);
      if (!chosen || chosen.length === 0) return chosen;
      const fit = chosen.slice(0, Math.max(1, gas.fitting(chosen.map((e) => e.charge), gasCap)));
      for (const entry of fit) buffer.delete(entry.charge.runRef);
      return fit;
    },
    putBack(entries, check) {
      const rest = [...buffer.entries()];
      buffer.clear();
      for (const entry of entries) {
        if (check) entry.check = true;
        buffer.set(entry.charge.runRef, entry);
      }
      for (const [ref, entry] of rest) buffer.set(ref, entry);
    },
    settle,
    messages: () => [...byRef.values()].flatMap((entry) => entry.messages),
    oldestWaiting: () => [...byRef.values()].reduce<number | undefined>((oldest, e) => (e.included || (oldest !== undefined && oldest <= e.receivedAt) ? oldest : e.receivedAt), undefined),
    undecided: () => [...byRef.values()].flatMap((entry) => entry.messages),
    deleted: () => Promise.allSettled([...deletions]),
  };
}
