// ERC-8004's registry events in a block range (eth_getLogs on both registries at once), decoded: the
// identity events the indexer follows (Registered, URIUpdated, Transfer) and the reputation events
// (NewFeedback, FeedbackRevoked), read in pages (get-paged-logs.ts). Logs of other events, or that do not decode, are left out.
import { parseEventLogs, type Address, type Hex } from "viem";
import type { ChainClient } from "./client.ts";
import { getPagedLogs } from "./get-paged-logs.ts";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";

interface At {
  blockNumber: bigint;
  logIndex: number;
  transactionHash: Hex;
}

export type Erc8004Event =
  | (At & { kind: "registered"; agentId: bigint; agentURI: string; owner: Address })
  | (At & { kind: "uri_updated"; agentId: bigint; newURI: string; updatedBy: Address })
  | (At & { kind: "transfer"; agentId: bigint; from: Address; to: Address })
  | (At & {
      kind: "feedback";
      agentId: bigint;
      clientAddress: Address;
      feedbackIndex: bigint;
      value: bigint;
      valueDecimals: number;
      tag1: string;
      tag2: string;
      endpoint: string;
      feedbackURI: string;
      feedbackHash: Hex;
    })
  | (At & { kind: "revoked"; agentId: bigint; clientAddress: Address; feedbackIndex: bigint });

export interface GetErc8004LogsParameters {
  fromBlock: bigint;
  toBlock: bigint;
}

/** The registries' events of the range, in chain order. */
export async function getErc8004Logs(chain: ChainClient, params: GetErc8004LogsParameters): Promise<Erc8004Event[]> {
  const registries = chain.erc8004;
  if (!registries) return [];
  const address = [registries.identityRegistry, registries.reputationRegistry];
  const logs = await getPagedLogs(params.fromBlock, params.toBlock, (from, to) => chain.client.getLogs({ address, fromBlock: from, toBlock: to }));
  const identity = registries.identityRegistry.toLowerCase();
  const reputation = registries.reputationRegistry.toLowerCase();
  const events: Erc8004Event[] = [];
  const at = (log: { blockNumber: bigint | null; logIndex: number | null; transactionHash: Hex | null }) => ({ blockNumber: log.blockNumber!, logIndex: log.logIndex!, transactionHash: log.transactionHash! });
  for (const log of parseEventLogs({ abi: identityRegistryAbi, logs: logs.filter((l) => l.address.toLowerCase() === identity), strict: true })) {
    if (log.eventName === "Registered") events.push({ ...at(log), kind: "registered", agentId: log.args.agentId, agentURI: log.args.agentURI, owner: log.args.owner });
    else if (log.eventName === "URIUpdated") events.push({ ...at(log), kind: "uri_updated", agentId: log.args.agentId, newURI: log.args.newURI, updatedBy: log.args.updatedBy });
    else if (log.eventName === "Transfer") events.push({ ...at(log), kind: "transfer", agentId: log.args.tokenId, from: log.args.from, to: log.args.to });
  }
  for (const log of parseEventLogs({ abi: reputationRegistryAbi, logs: logs.filter((l) => l.address.toLowerCase() === reputation), strict: true })) {
    if (log.eventName === "NewFeedback") {
      const a = log.args;
      events.push({
        ...at(log),
        kind: "feedback",
        agentId: a.agentId,
        clientAddress: a.clientAddress,
        feedbackIndex: a.feedbackIndex,
        value: a.value,
        valueDecimals: a.valueDecimals,
        tag1: a.tag1,
        tag2: a.tag2,
        endpoint: a.endpoint,
        feedbackURI: a.feedbackURI,
        feedbackHash: a.feedbackHash,
      });
    } else if (log.eventName === "FeedbackRevoked") {
      events.push({ ...at(log), kind: "revoked", agentId: log.args.agentId, clientAddress: log.args.clientAddress, feedbackIndex: log.args.feedbackIndex });
    }
  }
  return events.sort((x, y) => (x.blockNumber === y.blockNumber ? x.logIndex - y.logIndex : x.blockNumber < y.blockNumber ? -1 : 1));
}
