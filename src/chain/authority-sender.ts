// The protocol authority's transactions, sent by the one settler that holds the key's lease
// (src/execution/settler/).
// It owns the nonce against the chain's: read once from the chain when the settler starts (after any
// transaction an earlier settler left pending has been mined), then counted here, and held against the
// chain's at every block. Transactions are signed in-process and sent raw (one request each), with the
// fees of the latest block, never above the network's ceiling; each is followed by nonce from its send
// until its block is final (the network's finality depth under the head):
//  - pending: looked up each block (its receipts read before the chain's nonces, so one mined between
//    the two reads is seen mined); still not mined several blocks on, it is sent again under its nonce
//    with higher fees (only one of the two can be mined). Three fates are told apart:
//      dropped: never mined and the node holds nothing under its nonce (its pool let it go, or the send
//        never reached it): sent again under the same nonce with higher fees, still followed;
//      orphaned: mined, then a reorganisation took its block away (seen by the follower, by a nonce the
//        chain used at one read and not at the next, or by the chain's nonce below it): its same signed
//        bytes sent again at once, so its nonce is never left empty under the ones after it;
//      replaced: its nonce used by a transaction not its own (read twice): it will never be mined, so its
//        charges are checked against the chain and sent again;
//  - included: mined, its block not yet final;
//  - final: forgotten (its signed bytes are kept a while, to fill a gap a deeper reorganisation leaves).
// A gap (the chain's next nonce below a nonce this sender counts as sent, with nothing of it pending at
// the node) is filled from the chain's nonce up: with the transaction sent under that nonce when it is
// known, else with an empty transfer to the authority itself. A send whose answer never came (a timeout)
// may have reached the node: it is followed as pending under its hash, never sent again under a new nonce.
import { createPublicClient, http, keccak256, type Address, type Hex, type HttpTransportConfig, type PublicClient, type TransactionReceipt } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { ChainClient } from "./client.ts";

/** What a transaction carries: the charge batch, another transaction (the run log's), or nothing (a
 * filler for a nonce left empty). */
export type TxKind = "charges" | "other" | "filler";

export interface PendingTx {
  nonce: number;
  kind: TxKind;
  /** The contract it calls when not the Marketplace (the TokenMarketplace's batches). */
  to?: Address;
  data: Hex;
  gas: bigint;
  /** Every hash sent under this nonce (a replacement adds one). */
  hashes: Hex[];
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** The head when it was (last) sent. */
  sentAtHead: bigint;
  sentAt: number;
}

export type TxResult =
  /** Mined (again, after a reorganisation took its first block away). */
  | { tx: PendingTx; receipt: TransactionReceipt }
  /** Never mined, and the node let it go (its nonce not used): sent again under the same nonce with
   * higher fees; it is still followed. */
  | { tx: PendingTx; dropped: true }
  /** Its nonce was used by a transaction not its own: it will never be mined. */
  | { tx: PendingTx; replaced: true }
  /** It was mined and its block left the chain (a reorganisation): pending again, its same signed bytes
   * sent again at once. */
  | { tx: PendingTx; orphaned: true }
  /** Its block is final. */
  | { tx: PendingTx; final: true; receipt: TransactionReceipt };

/** The authority could not send (its balance cannot pay the gas, the node refused the transaction):
 * nothing was sent; the caller tries again later. */
export class SendRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SendRefusedError";
  }
}

/** The base fee is at or above the network's fee ceiling: nothing was sent; the caller waits. */
export class FeeCeilingError extends SendRefusedError {
  constructor(
    readonly baseFeePerGas: bigint,
    readonly maxFeePerGas: bigint,
  ) {
    super(`the base fee (${baseFeePerGas} wei) is at or above the fee ceiling (${maxFeePerGas} wei per gas)`);
    this.name = "FeeCeilingError";
  }
}

export interface AuthoritySender {
  readonly address: Address;
  /** Transactions sent and not yet seen mined, by nonce order. */
  pending(): readonly PendingTx[];
  /** Reads the nonce to count from. Waits (up to `maxWaitMs`) until no transaction of the authority is
   * pending at the node, so every earlier sender's transaction has been mined or dropped. */
  sync(maxWaitMs: number, signal?: AbortSignal): Promise<void>;
  /** The base fee of the latest block (each new head), which the next sends pay twice over at most. */
  setBaseFee(baseFeePerGas: bigint | null | undefined): void;
  /** What one gas costs a transaction sent now (base fee and tip, within the ceiling). */
  gasPrice(): bigint;
  /** Signs and sends a transaction to the marketplace (or to `to`, the TokenMarketplace) with the next
   * nonce. Throws FeeCeilingError when the base fee is at the ceiling, SendRefusedError when the node
   * refuses it (nothing was sent), and other errors when the chain could not be reached before anything
   * was sent. */
  send(kind: TxKind, data: Hex, gas: bigint, head: bigint, to?: Address): Promise<PendingTx>;
  /** Looks up what was sent at head `head`: returns the transactions mined (with their receipts),
   * dropped or final, in nonce order; sends again the ones stuck for `STUCK_BLOCKS`, and fills a gap. */
  poll(head: bigint): Promise<TxResult[]>;
  /** The blocks after `fork` left the chain: the transactions mined in them are pending again, and sent
   * again at once. */
  reorg(fork: bigint): Promise<TxResult[]>;
}

/** Blocks a transaction may wait before it is sent again with higher fees. */
export const STUCK_BLOCKS = 5n;
/** A replacement pays this much more (nodes require at least 10% more to replace). */
const BUMP_PERCENT = 130n;
/** Final transactions whose signed bytes are kept to fill a gap a deeper reorganisation leaves. */
const KEEP_FINAL = 64;
/** An empty transfer's gas. */
const FILLER_GAS = 21_000n;

interface Tracked extends PendingTx {
  /** The signed bytes last sent under this nonce. */
  raw: Hex;
  receipt?: TransactionReceipt;
}

/** Why the node refused a send, from its answer; undefined when the answer says nothing of a refusal
 * (a timeout, a connection lost: the send may have reached the node). */
export function nodeRefusal(error: unknown): string | undefined {
  const text = error instanceof Error ? `${error.message} ${String((error as { details?: string }).details ?? "")}` : String(error);
  // No answer is no refusal: the request may have been taken (the transaction may land later).
  if (/took too long|timed? ?out|ECONNRESET|socket hang up|fetch failed|ECONNREFUSED/i.test(text)) return undefined;
  if (/insufficient funds|gas \* price \+ value|exceeds balance/i.test(text)) return "the authority's balance cannot pay the gas";
  if (/nonce too low|nonce has already been used|already known|known transaction|replacement transaction underpriced|nonce too high|higher than the next one expected/i.test(text)) return "nonce";
  if (/intrinsic gas too low|exceeds block gas limit|gas limit reached|gas limit too/i.test(text)) return "the node refused the transaction's gas";
  return undefined;
}

/** Whether an error is the node's answer (a JSON-RPC error) rather than no answer at all. */
function answered(error: unknown): boolean {
  let e: unknown = error;
  for (let i = 0; i < 6 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "number" && code !== -32603 && code < 0) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export interface AuthoritySenderOptions {
  rpcUrl: string;
  privateKey: Hex;
  fetchFn?: HttpTransportConfig["fetchFn"];
  /** Blocks on top of a transaction's block before it counts as final (default 0). */
  finalityDepth?: number;
  /** The most it offers per gas (default: no ceiling). */
  maxFeePerGasWei?: bigint;
  /** Told when the sender fills a gap in its nonces. */
  onGap?(gap: { nonce: number; with: "resent" | "filler"; chainNonce: number }): void;
}

/** The sender's state and the steps its methods share: signing, fees within the ceiling, sends followed
 * under their nonce, a stuck transaction's replacement and the filling of gaps. */
interface SenderCore {
  account: PrivateKeyAccount;
  client: PublicClient;
  /** Blocks over a transaction's block before it counts as final. */
  depth: bigint;
  /** The nonce to send with next (undefined until read from the chain), the latest base fee and the tip. */
  state: { nextNonce: number | undefined; baseFee: bigint; priorityFee: bigint | undefined };
  /** Followed transactions by nonce (until final), and final ones kept to fill a deeper gap. */
  txs: Map<number, Tracked>;
  finals: Map<number, Tracked>;
  broadcast(raw: Hex): Promise<unknown>;
  fees(): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  resync(): Promise<void>;
  sendTracked(tx: PendingTx): Promise<Tracked>;
  fillGaps(latestNonce: number, head: bigint): Promise<TxResult[]>;
  bump(tx: Tracked, head: bigint): Promise<void>;
  receiptOf(tx: Tracked): Promise<TransactionReceipt | undefined>;
  heldByNode(tx: Tracked): Promise<boolean>;
}

function createSenderCore(chain: ChainClient, options: AuthoritySenderOptions): SenderCore {
  const account: PrivateKeyAccount = privateKeyToAccount(options.privateKey);
  const client: PublicClient = createPublicClient({
    chain: chain.chain,
    transport: http(options.rpcUrl, { timeout: 10_000, retryCount: 0, ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}) }),
  }) as PublicClient;
  const depth = BigInt(options.finalityDepth ?? 0);
  const ceiling = options.maxFeePerGasWei;
  const state: SenderCore["state"] = { nextNonce: undefined, baseFee: 1_000_000_000n, priorityFee: undefined };
  const txs = new Map<number, Tracked>();
  const finals = new Map<number, Tracked>();

  async function sign(tx: PendingTx): Promise<Hex> {
    return account.signTransaction({
      chainId: chain.chain.id,
      type: "eip1559",
      to: tx.kind === "filler" ? account.address : (tx.to ?? chain.marketplace),
      data: tx.data,
      gas: tx.gas,
      nonce: tx.nonce,
      value: 0n,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    });
  }

  const broadcast = (raw: Hex) => client.sendRawTransaction({ serializedTransaction: raw });

  /** The fees a send pays now: twice the base fee and the tip, within the ceiling. */
  function fees(): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
    const tip = state.priorityFee ?? 1_000_000_000n;
    if (ceiling === undefined) return { maxFeePerGas: 2n * state.baseFee + tip, maxPriorityFeePerGas: tip };
    if (state.baseFee >= ceiling) throw new FeeCeilingError(state.baseFee, ceiling);
    const cappedTip = tip < ceiling - state.baseFee ? tip : ceiling - state.baseFee;
    const max = 2n * state.baseFee + cappedTip;
    return { maxFeePerGas: max < ceiling ? max : ceiling, maxPriorityFeePerGas: cappedTip };
  }

  async function resync(): Promise<void> {
    state.nextNonce = Math.max(await client.getTransactionCount({ address: account.address, blockTag: "pending" }), ...[...txs.keys()].map((n) => n + 1));
  }

  /** Signs and sends `tx`; follows it under its nonce whether the node answered or not (a send with no
   * answer may have been taken). Throws the node's refusal. */
  async function sendTracked(tx: PendingTx): Promise<Tracked> {
    const raw = await sign(tx);
    const tracked: Tracked = { ...tx, raw, hashes: [...tx.hashes, keccak256(raw)] };
    try {
      await broadcast(raw);
    } catch (error) {
      if (answered(error) || nodeRefusal(error)) throw error;
      // No answer: the node may have taken it. It is followed like any pending transaction; if it never
      // reached the node, its nonce stays empty and the gap is filled at the next block.
    }
    txs.set(tx.nonce, tracked);
    return tracked;
  }

  /** Fills the nonces the chain lacks below the ones followed as sent (a transaction followed as pending
   * is the poll's: sent again when dropped). Returns the transactions counted as mined whose nonce the
   * chain has not used (their block left the chain unnoticed): orphaned, their bytes sent again. */
  async function fillGaps(latestNonce: number, head: bigint): Promise<TxResult[]> {
    const orphaned: TxResult[] = [];
    const top = state.nextNonce ?? latestNonce;
    for (let nonce = latestNonce; nonce < top; nonce++) {
      const tracked = txs.get(nonce);
      if (tracked && !tracked.receipt) continue;
      const known = tracked ?? finals.get(nonce);
      if (known) {
        // Counted as mined, yet the chain has not used its nonce: its block left the chain unnoticed.
        finals.delete(nonce);
        delete known.receipt;
        const again = { ...known, sentAtHead: head };
        txs.set(nonce, again);
        await broadcast(known.raw).catch(() => undefined);
        orphaned.push({ tx: again, orphaned: true });
        options.onGap?.({ nonce, with: "resent", chainNonce: latestNonce });
        continue;
      }
      const filler = await sendTracked({ nonce, kind: "filler", data: "0x", gas: FILLER_GAS, hashes: [], ...fees(), sentAtHead: head, sentAt: Date.now() }).catch(() => undefined);
      if (filler) options.onGap?.({ nonce, with: "filler", chainNonce: latestNonce });
    }
    return orphaned;
  }

  /** A transaction still pending after `STUCK_BLOCKS`: sent again with higher fees, within the ceiling
   * (at the ceiling, its same bytes again). */
  async function bump(tx: Tracked, head: bigint): Promise<void> {
    let next: Tracked = { ...tx, sentAtHead: head };
    try {
      const now = fees();
      const maxFee = (tx.maxFeePerGas * BUMP_PERCENT) / 100n + now.maxFeePerGas;
      const capped = ceiling !== undefined && maxFee > ceiling ? ceiling : maxFee;
      const tip = (tx.maxPriorityFeePerGas * BUMP_PERCENT) / 100n;
      if (capped * 100n >= tx.maxFeePerGas * 111n) {
        const bumped = { ...tx, maxFeePerGas: capped, maxPriorityFeePerGas: tip < capped ? tip : capped, sentAtHead: head };
        const raw = await sign(bumped);
        await broadcast(raw);
        next = { ...bumped, raw, hashes: [...tx.hashes, keccak256(raw)] };
      } else await broadcast(tx.raw);
    } catch {
      // Mined meanwhile, the node keeps the first, or the fees are at the ceiling: the next block looks again.
    }
    txs.set(tx.nonce, next);
  }

  /** Whether the node's pool holds one of the transaction's hashes (an answer that never came counts as
   * held: nothing is sent again on a guess). */
  async function heldByNode(tx: Tracked): Promise<boolean> {
    for (const hash of tx.hashes) {
      const found = await client.getTransaction({ hash }).then(
        () => true,
        (error: unknown) => !(error instanceof Error && error.name === "TransactionNotFoundError"),
      );
      if (found) return true;
    }
    return false;
  }

  async function receiptOf(tx: Tracked): Promise<TransactionReceipt | undefined> {
    for (const hash of tx.hashes) {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
      if (receipt) return receipt;
    }
    return undefined;
  }

  return { account, client, depth, state, txs, finals, broadcast, fees, resync, sendTracked, fillGaps, bump, receiptOf, heldByNode };
}

/** The authority's sender: its methods (sync, send, poll, reorg) over the core's state and steps. */
export function createAuthoritySender(chain: ChainClient, options: AuthoritySenderOptions): AuthoritySender {
  const { account, client, depth, state, txs, finals, broadcast, fees, resync, sendTracked, fillGaps, bump, receiptOf, heldByNode } = createSenderCore(chain, options);

  return {
    address: account.address,
    pending: () => [...txs.values()].filter((tx) => !tx.receipt).sort((a, b) => a.nonce - b.nonce),
    async sync(maxWaitMs, signal) {
      const until = Date.now() + maxWaitMs;
      for (;;) {
        const [latest, pending] = await Promise.all([
          client.getTransactionCount({ address: account.address, blockTag: "latest" }),
          client.getTransactionCount({ address: account.address, blockTag: "pending" }),
        ]);
        if (latest === pending || Date.now() >= until || signal?.aborted) {
          state.nextNonce = Math.max(pending, ...[...txs.keys()].map((n) => n + 1));
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      state.priorityFee = await client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n);
    },
    setBaseFee(value) {
      if (typeof value === "bigint") state.baseFee = value;
    },
    gasPrice() {
      const { maxFeePerGas, maxPriorityFeePerGas } = fees();
      const paid = state.baseFee + maxPriorityFeePerGas;
      return paid < maxFeePerGas ? paid : maxFeePerGas;
    },
    async send(kind, data, gas, head, to) {
      if (state.nextNonce === undefined) await resync();
      state.priorityFee ??= await client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n);
      for (let attempt = 0; ; attempt++) {
        const tx: PendingTx = { nonce: state.nextNonce!, kind, ...(to ? { to } : {}), data, gas, hashes: [], ...fees(), sentAtHead: head, sentAt: Date.now() };
        try {
          const sent = await sendTracked(tx);
          state.nextNonce = tx.nonce + 1;
          return sent;
        } catch (error) {
          const refusal = nodeRefusal(error);
          // Another sender used the nonce (a key shared by mistake, or a transaction we lost track of):
          // count from the chain again and retry once.
          if (refusal === "nonce" && attempt === 0) {
            await resync();
            continue;
          }
          if (refusal) throw new SendRefusedError(refusal === "nonce" ? "the authority's nonce is taken" : refusal, { cause: error });
          throw new SendRefusedError("the node refused the transaction", { cause: error });
        }
      }
    },
    async poll(head) {
      const results: TxResult[] = [];
      if (txs.size === 0) return results;
      const followed = [...txs.values()].sort((a, b) => a.nonce - b.nonce);
      // The receipts first, then the chain's nonces: a transaction mined between the two reads is then
      // seen mined, never taken for one whose nonce was used without it.
      const receipts = new Map<number, TransactionReceipt | undefined>();
      for (const tx of followed) if (!tx.receipt) receipts.set(tx.nonce, await receiptOf(tx));
      const nonces = async () => {
        const [latest, pending] = await Promise.all([
          client.getTransactionCount({ address: account.address, blockTag: "latest" }),
          client.getTransactionCount({ address: account.address, blockTag: "pending" }),
        ]);
        return { latest, pending };
      };
      let { latest: latestNonce, pending: pendingNonce } = await nonces();
      // A nonce the chain used with none of our hashes found: read again (mined, or its block taken away,
      // between the reads). A nonce used at the first read and free at the second was mined, then
      // reorganised away before this sender saw its receipt: orphaned.
      const usedAtFirst = latestNonce;
      const unexplained = () => followed.filter((tx) => !tx.receipt && !receipts.get(tx.nonce) && tx.nonce < latestNonce);
      if (unexplained().length > 0) {
        for (const tx of unexplained()) receipts.set(tx.nonce, await receiptOf(tx));
        if (unexplained().length > 0) ({ latest: latestNonce, pending: pendingNonce } = await nonces());
      }
      for (const tx of followed) {
        if (tx.receipt) {
          if (head - tx.receipt.blockNumber < depth) continue;
          txs.delete(tx.nonce);
          finals.set(tx.nonce, tx);
          for (const n of finals.keys()) if (finals.size > KEEP_FINAL) finals.delete(n);
          results.push({ tx, final: true, receipt: tx.receipt });
          continue;
        }
        const receipt = receipts.get(tx.nonce);
        if (receipt) {
          tx.receipt = receipt;
          results.push({ tx, receipt });
          if (head - receipt.blockNumber >= depth) {
            txs.delete(tx.nonce);
            finals.set(tx.nonce, tx);
            results.push({ tx, final: true, receipt });
          }
          continue;
        }
        if (tx.nonce < latestNonce) {
          // The nonce is used and none of our hashes holds it (read twice): another transaction took it.
          txs.delete(tx.nonce);
          results.push({ tx, replaced: true });
          continue;
        }
        if (tx.nonce < usedAtFirst) {
          // Mined, then its block left the chain before its receipt was read: its same bytes again.
          tx.sentAtHead = head;
          await broadcast(tx.raw).catch(() => undefined);
          results.push({ tx, orphaned: true });
          continue;
        }
        if (tx.nonce >= pendingNonce && tx.sentAtHead < head && !(await heldByNode(tx))) {
          // Never mined, and the node holds nothing under its nonce (its pool let it go, or the send never
          // reached it): sent again under the same nonce with higher fees. One the node still holds behind
          // a missing nonce (queued) is not dropped: it goes once the nonce before it is filled.
          await bump(tx, head);
          results.push({ tx: txs.get(tx.nonce)!, dropped: true });
          continue;
        }
        if (head - tx.sentAtHead >= STUCK_BLOCKS) await bump(tx, head);
      }
      results.push(...(await fillGaps(latestNonce, head)));
      return results;
    },
    async reorg(fork) {
      const results: TxResult[] = [];
      for (const tx of [...txs.values(), ...finals.values()].sort((a, b) => a.nonce - b.nonce)) {
        if (!tx.receipt || tx.receipt.blockNumber <= fork) continue;
        finals.delete(tx.nonce);
        delete tx.receipt;
        tx.sentAtHead = fork;
        txs.set(tx.nonce, tx);
        await broadcast(tx.raw).catch(() => undefined);
        results.push({ tx, orphaned: true });
      }
      return results;
    },
  };
}
