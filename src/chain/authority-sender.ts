// The protocol authority's transactions, sent by the one settler that holds the key's lease
// (src/execution/settler/).
// It owns the nonce: read once from the chain when the settler starts (after any transaction an earlier
// settler left pending has been mined, so nothing it sent can still land after a decision is read), then
// counted here. Transactions are signed in-process and sent raw (one request each), with the fees of the
// latest block; what is pending is tracked by nonce and looked up each block. A transaction still not
// mined several blocks on is sent again under its nonce with higher fees (only one of the two can be
// mined); one whose nonce the chain has used without it is reported dropped, so its charges are checked
// against the chain and sent again.
import { createPublicClient, http, type Address, type Hex, type HttpTransportConfig, type PublicClient, type TransactionReceipt } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { ChainClient } from "./client.ts";

/** What a pending transaction carries: the charge batch, or another transaction (the run log's). */
export type TxKind = "charges" | "other";

export interface PendingTx {
  nonce: number;
  kind: TxKind;
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

export type TxResult = { tx: PendingTx; receipt: TransactionReceipt } | { tx: PendingTx; dropped: true };

/** The authority could not send (its balance cannot pay the gas, the node refused the transaction):
 * nothing was sent; the caller tries again later. */
export class SendRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SendRefusedError";
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
  /** Signs and sends a transaction to the marketplace with the next nonce. Throws SendRefusedError when
   * the node refuses it (nothing was sent) and other errors when the chain could not be reached. */
  send(kind: TxKind, data: Hex, gas: bigint, head: bigint): Promise<PendingTx>;
  /** Looks up the pending transactions at head `head`: returns the ones mined (with their receipts) or
   * dropped, in nonce order, and sends again the ones stuck for `STUCK_BLOCKS`. */
  poll(head: bigint): Promise<TxResult[]>;
}

/** Blocks a transaction may wait before it is sent again with higher fees. */
export const STUCK_BLOCKS = 5n;
/** A replacement pays this much more (nodes require at least 10% more to replace). */
const BUMP_PERCENT = 130n;

function nodeRefusal(error: unknown): string | undefined {
  const text = error instanceof Error ? `${error.message} ${String((error as { details?: string }).details ?? "")}` : String(error);
  if (/insufficient funds|gas \* price \+ value|exceeds balance/i.test(text)) return "the authority's balance cannot pay the gas";
  if (/nonce too low|nonce has already been used|already known|replacement transaction underpriced|nonce too high|higher than the next one expected/i.test(text)) return "nonce";
  if (/intrinsic gas too low|exceeds block gas limit|gas limit|Missing or invalid parameters/i.test(text)) return "the node refused the transaction's gas";
  return undefined;
}

export function createAuthoritySender(chain: ChainClient, options: { rpcUrl: string; privateKey: Hex; fetchFn?: HttpTransportConfig["fetchFn"] }): AuthoritySender {
  const account: PrivateKeyAccount = privateKeyToAccount(options.privateKey);
  const client: PublicClient = createPublicClient({
    chain: chain.chain,
    transport: http(options.rpcUrl, { timeout: 10_000, retryCount: 0, ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}) }),
  }) as PublicClient;
  let nextNonce: number | undefined;
  let baseFee = 1_000_000_000n;
  let priorityFee: bigint | undefined;
  const inFlight = new Map<number, PendingTx>();

  async function sendRaw(tx: PendingTx): Promise<Hex> {
    const serialized = await account.signTransaction({
      chainId: chain.chain.id,
      type: "eip1559",
      to: chain.marketplace,
      data: tx.data,
      gas: tx.gas,
      nonce: tx.nonce,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    });
    return client.sendRawTransaction({ serializedTransaction: serialized });
  }

  async function resync(): Promise<void> {
    nextNonce = Math.max(await client.getTransactionCount({ address: account.address, blockTag: "pending" }), ...[...inFlight.keys()].map((n) => n + 1));
  }

  return {
    address: account.address,
    pending: () => [...inFlight.values()].sort((a, b) => a.nonce - b.nonce),
    async sync(maxWaitMs, signal) {
      const until = Date.now() + maxWaitMs;
      for (;;) {
        const [latest, pending] = await Promise.all([
          client.getTransactionCount({ address: account.address, blockTag: "latest" }),
          client.getTransactionCount({ address: account.address, blockTag: "pending" }),
        ]);
        if (latest === pending || Date.now() >= until || signal?.aborted) {
          nextNonce = pending;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      priorityFee = await client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n);
    },
    setBaseFee(value) {
      if (typeof value === "bigint") baseFee = value;
    },
    async send(kind, data, gas, head) {
      if (nextNonce === undefined) await resync();
      priorityFee ??= await client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n);
      for (let attempt = 0; ; attempt++) {
        const tx: PendingTx = { nonce: nextNonce!, kind, data, gas, hashes: [], maxFeePerGas: 2n * baseFee + priorityFee, maxPriorityFeePerGas: priorityFee, sentAtHead: head, sentAt: Date.now() };
        try {
          tx.hashes.push(await sendRaw(tx));
        } catch (error) {
          const refusal = nodeRefusal(error);
          // Another sender used the nonce (a key shared by mistake, or a transaction we lost track of):
          // count from the chain again and retry once.
          if (refusal === "nonce" && attempt === 0) {
            await resync();
            continue;
          }
          if (refusal) throw new SendRefusedError(refusal === "nonce" ? "the authority's nonce is taken" : refusal, { cause: error });
          throw error;
        }
        nextNonce = tx.nonce + 1;
        inFlight.set(tx.nonce, tx);
        return tx;
      }
    },
    async poll(head) {
      const results: TxResult[] = [];
      const txs = [...inFlight.values()].sort((a, b) => a.nonce - b.nonce);
      if (txs.length === 0) return results;
      const latestNonce = await client.getTransactionCount({ address: account.address, blockTag: "latest" });
      for (const tx of txs) {
        let receipt: TransactionReceipt | undefined;
        for (const hash of tx.hashes) {
          receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
          if (receipt) break;
        }
        if (receipt) {
          inFlight.delete(tx.nonce);
          results.push({ tx, receipt });
          continue;
        }
        if (tx.nonce < latestNonce) {
          // The nonce is used and none of our hashes holds it: the transaction will never be mined.
          inFlight.delete(tx.nonce);
          results.push({ tx, dropped: true });
          continue;
        }
        if (head - tx.sentAtHead >= STUCK_BLOCKS) {
          const bumped = { ...tx, maxFeePerGas: (tx.maxFeePerGas * BUMP_PERCENT) / 100n + 2n * baseFee, maxPriorityFeePerGas: (tx.maxPriorityFeePerGas * BUMP_PERCENT) / 100n, sentAtHead: head };
          try {
            const hash = await sendRaw(bumped);
            inFlight.set(tx.nonce, { ...bumped, hashes: [...tx.hashes, hash] });
          } catch {
            // Mined meanwhile, or the node keeps the first: the next block looks again.
            inFlight.set(tx.nonce, { ...tx, sentAtHead: head });
          }
        }
      }
      return results;
    },
  };
}
