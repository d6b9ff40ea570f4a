// Registers listings as ERC-8004 agents the way a creator does (POST /v1/listings/{listing_id}/erc8004,
// then the creator's wallet sends register and setAgentURI): the demo's creators register theirs at
// every start, since the local chain is fresh each time.
import { createPublicClient, createWalletClient, http, parseEventLogs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Services } from "../src/services.ts";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { prepareRegistration } from "../src/erc8004/registration.ts";
import { getListingErc8004 } from "../src/erc8004/erc8004.store.ts";
import { toOnChainId } from "../src/listings/ids.ts";

/** Registers `listingId` for its creator (unless its agent is known already); returns the agent id. */
export async function registerListingAgent(services: Services, creatorKey: Hex, listingId: string, apiBase: string): Promise<string> {
  const linked = await getListingErc8004(services.tables, toOnChainId(listingId));
  if (linked?.agent_id) return linked.agent_id;
  const account = privateKeyToAccount(creatorKey);
  const transport = http(services.config.RPC_URL);
  const wallet = createWalletClient({ account, chain: services.chain.chain, transport });
  const client = createPublicClient({ chain: services.chain.chain, transport });
  const send = async (tx: { to: Hex; data: Hex }) => {
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction(tx), pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`ERC-8004 registration of ${listingId} reverted in ${receipt.transactionHash}`);
    return receipt;
  };
  const first = await prepareRegistration(services, account.address, listingId, {}, apiBase);
  const registered = await send(first.transaction);
  const agentId = parseEventLogs({ abi: identityRegistryAbi, logs: registered.logs, eventName: "Registered" })[0]!.args.agentId;
  const complete = await prepareRegistration(services, account.address, listingId, { agent_id: agentId.toString() }, apiBase);
  await send(complete.transaction);
  return agentId.toString();
}
