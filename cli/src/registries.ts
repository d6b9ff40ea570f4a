// ERC-8004's registries as the CLI meets them: the API prepares a transaction ({to, data}) and the
// CLI's wallet sends it. Before anything is signed, the call data is decoded with the registry's ABI
// (the shared core's, generated from the contracts) and must be the call the command asked for, on the
// chain the CLI is set to; the write is then simulated as a call of that ABI, so a refusal names the
// registry's own error. Loaded only by the ERC-8004 commands (it brings viem).
import { decodeFunctionData, getAddress, isAddress, parseEventLogs, type Abi, type Hex, type Log } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import { CliError, EXIT } from "./errors.ts";
import type { ChainTarget, ContractCall } from "./chain.ts";

// giveFeedback asks the Identity Registry whether the sender owns the agent: its reverts decode too.
const identityErrors = identityRegistryAbi.filter((item) => item.type === "error");
const REGISTRIES = {
  identity: { abi: identityRegistryAbi as Abi, contract: "IdentityRegistry" },
  reputation: { abi: [...reputationRegistryAbi, ...identityErrors] as Abi, contract: "ReputationRegistry" },
} as const;

/** `eip155:<chainId>:<address>` as its parts; throws when it is not one. */
export function parseAgentRegistry(value: string): { chainId: number; address: Hex } {
  const m = /^eip155:(\d{1,12}):(0x[0-9a-fA-F]{40})$/.exec(value);
  if (!m) throw new CliError(`The service named the registry ${JSON.stringify(value)}, which is not eip155:<chain id>:<address>.`, EXIT.failure, "unexpected_answer");
  return { chainId: Number(m[1]), address: getAddress(m[2]!) };
}

/**
 * The call a prepared transaction stands for, checked: on the chain of `target`, to the registry the
 * answer names (`agentRegistry` for the Identity Registry), and one of `expected`.
 */
export function preparedCall(target: ChainTarget, registry: keyof typeof REGISTRIES, prepared: { transaction: { to: string; data: string }; agent_registry: string }, expected: readonly string[]): ContractCall {
  const named = parseAgentRegistry(prepared.agent_registry);
  if (named.chainId !== target.chain.id) {
    throw new CliError(`The service's ERC-8004 registries are on chain ${named.chainId}, but this CLI is set to chain ${target.chain.id}: set the service's chain (--chain-id and --rpc-url, or \`agentrent config set\`). Nothing was sent.`, EXIT.usage, "wrong_chain");
  }
  const { to, data } = prepared.transaction;
  if (!isAddress(to)) throw new CliError("The service answered a transaction without a valid registry address; nothing was sent.", EXIT.failure, "unexpected_answer");
  if (registry === "identity" && getAddress(to) !== named.address) throw new CliError(`The service answered a transaction to ${to}, not to the Identity Registry it names (${named.address}); nothing was sent.`, EXIT.failure, "unexpected_answer");
  const { abi, contract } = REGISTRIES[registry];
  let decoded: { functionName: string; args: readonly unknown[] | undefined };
  try {
    decoded = decodeFunctionData({ abi, data: data as Hex });
  } catch {
    throw new CliError(`The service answered a transaction the ${contract}'s ABI does not read; nothing was sent.`, EXIT.failure, "unexpected_answer");
  }
  if (!expected.includes(decoded.functionName)) throw new CliError(`The service answered a ${decoded.functionName} transaction where ${expected.join(" or ")} was expected; nothing was sent.`, EXIT.failure, "unexpected_answer");
  return { address: getAddress(to), abi, functionName: decoded.functionName, args: decoded.args ?? [], contract };
}

/** The agent id a register transaction's Registered event gives. */
export function registeredAgentId(logs: Log[]): bigint {
  const event = parseEventLogs({ abi: identityRegistryAbi, logs, eventName: "Registered" })[0];
  if (!event) throw new CliError("The registry confirmed the transaction but logged no Registered event.", EXIT.failure, "unexpected_receipt");
  return event.args.agentId;
}

/** The agent's registration file URI, as the registry holds it (tokenURI). */
export async function agentUri(target: ChainTarget, registry: Hex, agentId: bigint): Promise<string> {
  const { guard } = await import("./chain.ts");
  return guard(() => target.client.readContract({ address: registry, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] }), "IdentityRegistry");
}
