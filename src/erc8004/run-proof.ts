// A run's wallet proven by its signature instead of a bearer token (decisions 0235, 0257): the wallet that
// paid for a run (an x402 payer holds no API key and never signs in) signs, with EIP-191 personal_sign,
// a message naming what it proves the wallet for:
//   run-feedback:<run_id>:<unix_timestamp>   to prepare feedback (POST /v1/runs/{run_id}/feedback)
//   run-read:<run_id>:<unix_timestamp>       to read the run (GET /v1/runs/{run_id}, A2A GetTask)
// and sends `X-Wallet-Signature: <unix_timestamp>:<signature>`. The signature names its purpose, the run
// (a random id no other run of any service has) and the moment, so it proves nothing for another purpose
// or another run and goes stale in five minutes. It is checked against the run's own wallet (the payer of
// an x402 run): plain accounts by recovery, smart-contract wallets by ERC-1271 (verifyWalletSignature).
import type { Address, Hex } from "viem";
import { ApiError } from "../errors.ts";
import type { ChainClient } from "../chain/client.ts";
import { verifyWalletSignature } from "../auth/signatures.ts";
import { RUN_ID, type RunRecord } from "../execution/runs/run.ts";
import { getRun } from "../execution/runs/run.store.ts";

export const WALLET_SIGNATURE_HEADER = "x-wallet-signature";
/** How far the signed moment may be from the service's clock, either way. */
export const WALLET_SIGNATURE_WINDOW_SECONDS = 300;

/** What a run's wallet signs for: each purpose has its own message, so a signature for one is refused for the other. */
export type RunProofPurpose = "feedback" | "read";

const HEADER = /^(\d{10}):(0x[0-9a-fA-F]{2,4096})$/;

/** The message a run's wallet signs to prove itself for `purpose` at `timestamp`. */
export function runProofMessage(purpose: RunProofPurpose, runId: string, timestamp: number): string {
  return `run-${purpose}:${runId}:${timestamp}`;
}

/** The message a run's wallet signs to prepare feedback for it. */
export function runFeedbackMessage(runId: string, timestamp: number): string {
  return runProofMessage("feedback", runId, timestamp);
}

/** The message a run's wallet signs to read the run (and its A2A task). */
export function runReadMessage(runId: string, timestamp: number): string {
  return runProofMessage("read", runId, timestamp);
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
export function readWalletProof(header: string, now = Math.floor(Date.now() / 1000), purpose: RunProofPurpose = "feedback"): WalletProof {
  const match = HEADER.exec(header.trim());
  if (!match) throw new ApiError("unauthorized", `Malformed X-Wallet-Signature header: expected <unix_timestamp>:<0x signature> of the message run-${purpose}:<run_id>:<unix_timestamp>.`);
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > WALLET_SIGNATURE_WINDOW_SECONDS) {
    throw new ApiError("unauthorized", `The X-Wallet-Signature's timestamp ${timestamp} is more than ${WALLET_SIGNATURE_WINDOW_SECONDS} s from the service's clock (${now}): sign again with the current time.`);
  }
  return { timestamp, signature: match[2] as Hex };
}

/** Whether `proof` is `wallet`'s signature of the run's message for `purpose` (feedback unless named). */
export async function provesRunWallet(chain: ChainClient, runId: string, wallet: Address, proof: WalletProof, purpose: RunProofPurpose = "feedback"): Promise<boolean> {
  return verifyWalletSignature(chain, wallet, runProofMessage(purpose, runId, proof.timestamp), proof.signature);
}

/**
 * Run `runId`, when `header` (X-Wallet-Signature) proves its wallet for `purpose`: 401 unauthorized for a
 * malformed or stale header (before the run is looked up); 404 not_found for an unknown run or a
 * signature of another wallet, or of the run's wallet for another purpose (another wallet's run is as
 * unknown as one that does not exist, as it is to a bearer caller).
 */
export async function provenRun(services: { tables: Parameters<typeof getRun>[0]; chain: ChainClient }, runId: string, header: string, purpose: RunProofPurpose): Promise<RunRecord> {
  const proof = readWalletProof(header, Math.floor(Date.now() / 1000), purpose);
  const run = RUN_ID.test(runId) ? await getRun(services.tables, runId) : null;
  if (!run || !(await provesRunWallet(services.chain, runId, run.wallet, proof, purpose))) {
    throw new ApiError("not_found", `No run ${runId} for the wallet that signed X-Wallet-Signature.`);
  }
  return run;
}
