// Feedback that counts: the payer proves it is the run's wallet by signing `run-feedback:<run_id>:<unix
// time>` (X-Wallet-Signature; no API key), the service answers the feedback file (with the run's receipt
// and its Merkle proof) and the unsigned giveFeedback transaction, and the wallet sends it to the
// Reputation Registry. The verified count is recomputed from the chain and the files alone
// (@agent-rental/sdk's verifyReputation), before and after.
import { createWalletClient, getAddress, http, type Address, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { verifyReputation } from "@agent-rental/sdk/erc8004";
import { readIpfs, type Discovered } from "./discover.ts";
import type { AgentSettings } from "./settings.ts";

interface PreparedFeedback {
  listing_id: string;
  feedback_file: { runReceipt: { marketplace: string; receipt: { listingId: Hex } } & Record<string, unknown> };
  transaction: { to: Address; data: Hex };
}

export interface Rated {
  receipt: Record<string, unknown>;
  txHash: Hex;
  verifiedBefore: number;
  verifiedAfter: number;
}

/** How long the run's receipt may take to reach the on-chain run log (seconds locally, a minute in the cloud). */
const RECEIPT_WAIT_MS = 180_000;

/** POST /v1/runs/{run_id}/feedback proven by the wallet's signature, again while the receipt is pending. */
async function prepare(account: PrivateKeyAccount, apiBase: string, runId: string): Promise<PreparedFeedback> {
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await account.signMessage({ message: `run-feedback:${runId}:${timestamp}` });
    const response = await fetch(`${apiBase}/v1/runs/${runId}/feedback`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-wallet-signature": `${timestamp}:${signature}` },
      body: JSON.stringify({ value: 95, text: "Paid by x402, delivered a usable email." }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as PreparedFeedback & { error?: { code: string; message: string } };
    if (response.status === 200) return body;
    if (response.status === 409 && body.error?.code === "receipt_pending" && Date.now() < deadline) {
      const retryAfter = Number(response.headers.get("retry-after") ?? "1");
      console.log(`The run's receipt is not in the run log yet; again in ${retryAfter} s`);
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      continue;
    }
    throw new Error(`Feedback could not be prepared (HTTP ${response.status}): ${JSON.stringify(body)}`);
  }
}

export async function rate(client: PublicClient, account: PrivateKeyAccount, settings: AgentSettings, found: Discovered, runId: string): Promise<Rated> {
  const prepared = await prepare(account, found.apiBase, runId);
  const receipt = prepared.feedback_file.runReceipt;
  // The marketplace whose run log holds the receipt: the file names it as eip155:<chain id>:<address>.
  const marketplace = getAddress(receipt.marketplace.split(":").at(-1)!);
  const verified = async () =>
    (
      await verifyReputation({
        client,
        identityRegistry: settings.identityRegistry,
        reputationRegistry: prepared.transaction.to,
        marketplace,
        agentIds: [found.agentId],
        listingId: receipt.receipt.listingId,
        fromBlock: settings.fromBlock,
        fetchFile: (uri) => readIpfs(settings, uri),
      })
    ).review_count;
  const verifiedBefore = await verified();
  const chain = { id: await client.getChainId(), name: "chain", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [settings.rpcUrl] } } };
  const wallet = createWalletClient({ account, chain, transport: http(settings.rpcUrl) });
  const txHash = await wallet.sendTransaction(prepared.transaction);
  const sent = await client.waitForTransactionReceipt({ hash: txHash, timeout: 120_000 });
  if (sent.status !== "success") throw new Error(`giveFeedback reverted in ${txHash}`);
  return { receipt, txHash, verifiedBefore, verifiedAfter: await verified() };
}
