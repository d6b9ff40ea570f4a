// The run feedback's wallet proof (decision 0235): the header's shape and window, and the message signed.
import { describe, expect, it } from "vitest";
import { recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ApiError } from "../errors.ts";
import { readWalletProof, runFeedbackMessage, walletSignatureHeader, WALLET_SIGNATURE_WINDOW_SECONDS } from "./run-proof.ts";

const NOW = 1_800_000_000;
const refused = (header: string) => {
  try {
    readWalletProof(header, NOW);
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.code}` : String(error);
  }
  return "accepted";
};

describe("X-Wallet-Signature", () => {
  it("reads a fresh proof whose signature recovers the signing wallet from the run's message", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const signature = await account.signMessage({ message: runFeedbackMessage("run_0123", NOW) });
    const proof = readWalletProof(walletSignatureHeader(NOW, signature), NOW);
    expect(proof).toEqual({ timestamp: NOW, signature });
    expect(runFeedbackMessage("run_0123", NOW)).toBe(`run-feedback:run_0123:${NOW}`);
    expect(await recoverMessageAddress({ message: runFeedbackMessage("run_0123", proof.timestamp), signature: proof.signature })).toBe(account.address);
  });

  it("refuses a malformed or stale header with 401 unauthorized", () => {
    const sig = `0x${"ab".repeat(65)}`;
    expect(refused(`${NOW}:${sig}`)).toBe("accepted");
    expect(refused(`${NOW + WALLET_SIGNATURE_WINDOW_SECONDS}:${sig}`)).toBe("accepted");
    expect(refused(`${NOW - WALLET_SIGNATURE_WINDOW_SECONDS - 1}:${sig}`)).toBe("401 unauthorized");
    expect(refused(`${NOW + WALLET_SIGNATURE_WINDOW_SECONDS + 1}:${sig}`)).toBe("401 unauthorized");
    expect(refused(sig)).toBe("401 unauthorized");
    expect(refused(`${NOW}:${sig.slice(2)}`)).toBe("401 unauthorized");
    expect(refused(`${NOW}:0x${"g".repeat(130)}`)).toBe("401 unauthorized");
    expect(refused(`${NOW}:0x${"a".repeat(5000)}`)).toBe("401 unauthorized");
    expect(refused("")).toBe("401 unauthorized");
  });
});
