// A run's wallet proven by its signature instead of a bearer token (decision 0235): the wallet that paid
// for a run (an x402 payer holds no API key and never signs in) signs, with EIP-191 personal_sign,
//   run-feedback:<run_id>:<unix_timestamp>
// and sends `X-Wallet-Signature: <unix_timestamp>:<signature>` on POST /v1/runs/{run_id}/feedback. The
// signature names the run (a random id no other run of any service has) and the moment, so it proves
// nothing for another run and goes stale in five minutes. It is checked against the run's own wallet (the payer of an x402 run):
// plain accounts by recovery, smart-contract wallets by ERC-1271 (verifyWalletSignature).
import type { Address, Hex } from "viem";
import { ApiError } from "../errors.ts";
import type { ChainClient } from "../chain/client.ts";
import { verifyWalletSignature } from "../auth/signatures.ts";

export const WALLET_SIGNATURE_HEADER = "x-wallet-signature";
/** How far the signed moment may be from the service's clock, either way. */
export const WALLET_SIGNATURE_WINDOW_SECONDS = 300;

const HEADER = /^(\d{10}):(0x[0-9a-fA-F]{2,4096})$/;

/** The message a run's wallet signs to prepare feedback for it. */
export function runFeedbackMessage(runId: string, timestamp: number): string {
  return `run-feedback:${runId}:${timestamp}`;
}

/** The X-Wallet-Signature value for `runId` signed at `timestamp` (what a client sends). */
export function walletSignatureHeader(timestamp: number, signature: Hex): string {
  return `${timestamp}:${signature}`;
}

export interface WalletProof {
  timestamp: number;
  signature: Hex;
}

/** Reads the header: 401 unauthorized when it is not `<unix_timestamp>:<0x signature>` or is stale. */
export function readWalletProof(header: string, now = Math.floor(Date.now() / 1000)): WalletProof {
  const match = HEADER.exec(header.trim());
  if (!match) throw new ApiError("unauthorized", "Malformed X-Wallet-Signature header: expected <unix_timestamp>:<0x signature> of the message run-feedback:<run_id>:<unix_timestamp>.");
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > WALLET_SIGNATURE_WINDOW_SECONDS) {
    throw new ApiError("unauthorized", `The X-Wallet-Signature's timestamp ${timestamp} is more than ${WALLET_SIGNATURE_WINDOW_SECONDS} s from the service's clock (${now}): sign again with the current time.`);
  }
  return { timestamp, signature: match[2] as Hex };
}

/** Whether `proof` is `wallet`'s signature of the run's feedback message. */
export async function provesRunWallet(chain: ChainClient, runId: string, wallet: Address, proof: WalletProof): Promise<boolean> {
  return verifyWalletSignature(chain, wallet, runFeedbackMessage(runId, proof.timestamp), proof.signature);
}
