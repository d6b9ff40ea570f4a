// ERC-8004's registries as the dashboard meets them: the API prepares a transaction ({to, data}) and
// the wallet sends it. The page decodes the call data with the registry's ABI (generated from the
// contracts, `@agent-rental/core/identity-registry` and `…/reputation-registry`) before anything
// reaches the wallet: only the calls the page asked for are sent, and the write is simulated as a call
// of the registry's own ABI, so its reverts decode to the registry's custom errors in plain words.
import { decodeFunctionData, getAddress, isAddress, type Abi, type Address, type Hex } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import type { ContractWrite } from "./useContractFlow.ts";

export { identityRegistryAbi, reputationRegistryAbi };

// giveFeedback asks the Identity Registry whether the sender owns the agent, so its reverts may be the
// Identity Registry's (ERC721NonexistentToken): both registries' errors decode.
const identityErrors = identityRegistryAbi.filter((item) => item.type === "error");
const ABIS = { identity: identityRegistryAbi as Abi, reputation: [...reputationRegistryAbi, ...identityErrors] as Abi } as const;

/** `eip155:<chainId>:<address>` (an ERC-8004 agent registry) as its parts; null when it is not one. */
export function parseAgentRegistry(value: string): { chainId: number; address: Address } | null {
  const m = /^eip155:(\d{1,12}):(0x[0-9a-fA-F]{40})$/.exec(value);
  if (!m || !isAddress(m[2]!)) return null;
  return { chainId: Number(m[1]), address: getAddress(m[2]!) };
}

/**
 * The write a prepared transaction stands for, checked: its call data must decode with the registry's
 * ABI to one of `expected` (a `register` where the page asked to register, …). Throws, in words a user
 * reads, when it does not; nothing is sent then.
 */
export function preparedWrite(registry: keyof typeof ABIS, transaction: { to: string; data: string }, expected: readonly string[]): ContractWrite {
  if (!isAddress(transaction.to)) throw new Error("The service answered a transaction without a valid registry address; nothing was sent.");
  let decoded: { functionName: string; args: readonly unknown[] | undefined };
  try {
    decoded = decodeFunctionData({ abi: ABIS[registry], data: transaction.data as Hex });
  } catch {
    throw new Error("The service answered a transaction this page cannot read; nothing was sent.");
  }
  if (!expected.includes(decoded.functionName)) throw new Error(`The service answered a ${decoded.functionName} transaction where ${expected.join(" or ")} was expected; nothing was sent.`);
  return { address: getAddress(transaction.to), abi: ABIS[registry], functionName: decoded.functionName, args: decoded.args ?? [] };
}

/** What the dashboard reads of an ERC-8004 registration file. */
export interface RegistrationFile {
  active?: unknown;
  registrations?: unknown;
}

/** Whether a registration file names `agentId` among its registrations in `agentRegistry`. */
export function namesAgent(file: RegistrationFile, agentId: string, agentRegistry: string): boolean {
  return Array.isArray(file.registrations) && file.registrations.some((r: unknown) => {
    const entry = r as { agentId?: unknown; agentRegistry?: unknown } | null;
    return entry !== null && String(entry.agentId) === agentId && typeof entry.agentRegistry === "string" && entry.agentRegistry.toLowerCase() === agentRegistry.toLowerCase();
  });
}
