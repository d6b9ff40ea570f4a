// A run's wallet proving itself without a bearer token: the payer of an x402 run holds no API key and
// never signs in, so it signs, with EIP-191 personal_sign, `run-<purpose>:<run_id>:<unix_timestamp>` and
// sends `X-Wallet-Signature: <unix_timestamp>:<signature>`. "read" reads the run (`runs.get`, and A2A
// GetTask of its task); "feedback" prepares its feedback (`runs.feedback`). The service accepts a
// signature within five minutes of its clock, for the one run and the one purpose it names.
import { resolveSigner, type Signer, type SignerOptions } from "./signer.ts";

/** The header that carries the proof. */
export const WALLET_SIGNATURE_HEADER = "X-Wallet-Signature";

/** What the signature is for: each purpose has its own message, refused for the other. */
export type RunProofPurpose = "read" | "feedback";

/** The message a run's wallet signs for `purpose` at `timestamp` (unix seconds). */
export function runProofMessage(purpose: RunProofPurpose, runId: string, timestamp: number): string {
  return `run-${purpose}:${runId}:${timestamp}`;
}

export interface RunWalletSignatureOptions extends SignerOptions {
  /** The signed moment, unix seconds (default: now). */
  timestamp?: number;
}

/**
 * The `X-Wallet-Signature` value by which `wallet` (the run's wallet: a viem account, or an EIP-1193
 * provider) proves itself for `purpose` on run `runId`.
 *
 * @example
 * const header = await runWalletSignature(account, runId, "read");
 * await fetch(`${api}/v1/runs/${runId}`, { headers: { [WALLET_SIGNATURE_HEADER]: header } });
 */
export async function runWalletSignature(wallet: Signer, runId: string, purpose: RunProofPurpose, options: RunWalletSignatureOptions = {}): Promise<string> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signer = await resolveSigner(wallet, options);
  return `${timestamp}:${await signer.sign(runProofMessage(purpose, runId, timestamp))}`;
}
