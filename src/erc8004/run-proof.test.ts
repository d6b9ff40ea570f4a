// A run's wallet proof (decisions 0235, 0257): the header's shape and window, and the messages signed,
// one per purpose.
import { describe, expect, it } from "vitest";
import { recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ApiError } from "../errors.ts";
import { readWalletProof, runFeedbackMessage, runProofMessage, runReadMessage, walletSignatureHeader, WALLET_SIGNATURE_WINDOW_SECONDS } from "./run-proof.ts";

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

  it("signs a message of its own per purpose: the feedback message as it always was, the read message apart", async () => {
    expect(runProofMessage("feedback", "run_0123", NOW)).toBe(`run-feedback:run_0123:${NOW}`);
    expect(runReadMessage("run_0123", NOW)).toBe(`run-read:run_0123:${NOW}`);
    expect(runProofMessage("read", "run_0123", NOW)).toBe(runReadMessage("run_0123", NOW));
    const account = privateKeyToAccount(generatePrivateKey());
    const forRead = await account.signMessage({ message: runReadMessage("run_0123", NOW) });
    // A signature of the read message recovers another address from the feedback message: it proves nothing there.
    expect(await recoverMessageAddress({ message: runFeedbackMessage("run_0123", NOW), signature: forRead })).not.toBe(account.address);
    expect(await recoverMessageAddress({ message: runReadMessage("run_0123", NOW), signature: forRead })).toBe(account.address);
  });

  it("names the purpose's message in the 401 of a malformed header", () => {
    const messageOf = (purpose: "read" | "feedback") => {
      try {
        readWalletProof("nonsense", NOW, purpose);
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    };
    expect(messageOf("read")).toContain("run-read:<run_id>:<unix_timestamp>");
    expect(messageOf("feedback")).toContain("run-feedback:<run_id>:<unix_timestamp>");
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
