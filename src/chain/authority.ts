// The protocol authority's signer: the service's own key, which the authority's action files send with
// (consume-query.ts for per-query settlement, log-runs.ts for the run log). One account per process
// with viem's nonce manager and sends in nonce order, so concurrent runs settling at once take
// consecutive nonces instead of colliding; a nonce another instance took first ("nonce too low", or a
// gap the node refuses) is retried with a fresh one. The key is a secret: it never appears in a log
// line, an error or a response (errors carry the function name and the transaction hash only).
import { createPublicClient, createWalletClient, http, nonceManager, BaseError, ContractFunctionRevertedError, type Hex, type HttpTransportConfig, type PrivateKeyAccount, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import type { ChainClient } from "./client.ts";
import type { MarketplaceWriteArgs, MarketplaceWriteName } from "./write.ts";

/** A contract revert, decoded: the custom error's name (e.g. "InsufficientBalance"). */
export class AuthorityRevertError extends Error {
  override readonly name = "AuthorityRevertError";
  constructor(readonly functionName: string, readonly contractError: string) {
    super(`${functionName} was refused by the contract (${contractError})`);
  }
}

/** The transaction could not be sent or confirmed (node down, timeout): the outcome is unknown. */
export class AuthorityUnavailableError extends Error {
  override readonly name = "AuthorityUnavailableError";
  constructor(readonly functionName: string, options?: { cause?: unknown }) {
    super(`${functionName} could not be sent or confirmed; the chain is unreachable`, options);
  }
}

export interface AuthoritySigner {
  readonly address: `0x${string}`;
  /** Simulates, sends and waits for the receipt of `functionName(args)` from the authority: the transport
   * of the action files, which decode what the transaction did. Reverts
   * (in simulation or on-chain) throw AuthorityRevertError with the decoded error name; transport
   * failures throw AuthorityUnavailableError. Returns the receipt and the simulated return value. */
  write<name extends MarketplaceWriteName>(functionName: name, args: MarketplaceWriteArgs<name>): Promise<{ receipt: TransactionReceipt; result: unknown }>;
}

const NONCE_RETRIES = 3;

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.reason ?? "reverted";
  return undefined;
}

function isNonceError(error: unknown): boolean {
  return error instanceof Error && /nonce too low|nonce too high|higher than the next one expected|nonce has already been used|replacement transaction underpriced/i.test(error.message);
}

/** `options.fetchFn`: the fetch the transport sends JSON-RPC with (the service passes one that times each call). */
export function createAuthoritySigner(chain: ChainClient, rpcUrl: string, privateKey: Hex, options: { fetchFn?: HttpTransportConfig["fetchFn"] } = {}): AuthoritySigner {
  const account: PrivateKeyAccount = privateKeyToAccount(privateKey, { nonceManager });
  const transport = http(rpcUrl, { timeout: 15_000, retryCount: 1, ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}) });
  const wallet = createWalletClient({ account, chain: chain.chain, transport });
  const reader = createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 });

  // Sends leave this process one at a time, in nonce order: a node that receives nonce n+1 before n
  // refuses it. Waiting for receipts is not serialised.
  let sending: Promise<unknown> = Promise.resolve();
  const sendInOrder = <T>(send: () => Promise<T>): Promise<T> => {
    const next = sending.then(send, send);
    sending = next.catch(() => undefined);
    return next;
  };

  async function write<name extends MarketplaceWriteName>(functionName: name, args: MarketplaceWriteArgs<name>): Promise<{ receipt: TransactionReceipt; result: unknown }> {
    for (let attempt = 0; ; attempt++) {
      let result: unknown;
      let hash: Hex;
      try {
        // viem's generics cannot follow a generic function name through the overloads.
        const simulation = await reader.simulateContract({ account, address: chain.marketplace, abi: marketplaceAbi, functionName, args } as never);
        result = (simulation as { result: unknown }).result;
        hash = await sendInOrder(() => wallet.writeContract((simulation as { request: unknown }).request as never));
      } catch (error) {
        const name = revertName(error);
        if (name) throw new AuthorityRevertError(functionName, name);
        if (isNonceError(error) && attempt < NONCE_RETRIES) {
          nonceManager.reset({ address: account.address, chainId: chain.chain.id });
          continue;
        }
        throw new AuthorityUnavailableError(functionName, { cause: error });
      }
      let receipt: TransactionReceipt;
      try {
        receipt = await reader.waitForTransactionReceipt({ hash, timeout: 60_000 });
      } catch (error) {
        throw new AuthorityUnavailableError(functionName, { cause: error });
      }
      if (receipt.status !== "success") throw new AuthorityRevertError(functionName, "reverted");
      return { receipt, result };
    }
  }

  return { address: account.address, write };
}
