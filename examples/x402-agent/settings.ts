// What the agent holds, and nothing more: a funded wallet's private key, the chain's RPC URL and the
// ERC-8004 Identity Registry's address; where it reads content-addressed files (an IPFS gateway); and its
// own spending policy (the most it pays per run). From the environment, or the local stack's stack.json
// (written by `npm start`) given as the first argument for what the environment leaves out.
import { readFileSync } from "node:fs";
import { isAddress, isHex, type Address, type Hex } from "viem";

export interface AgentSettings {
  privateKey: Hex;
  rpcUrl: string;
  identityRegistry: Address;
  /** Where ipfs://<cid> is read: `${gateway}<cid>`. */
  ipfsGateway: string;
  /** The listing to look for: a registration file whose name contains this (default: any payable by x402). */
  listingName: string | undefined;
  /** The most the agent pays for one run, in whole tokens ("1" = 1 USDC). */
  maxPayment: string;
  /** The first block to read the registry's events from. */
  fromBlock: bigint;
}

interface StackFile {
  rpc_url?: string;
  api_url?: string;
  contracts?: { identity_registry?: string };
}

function fail(message: string): never {
  throw new Error(`${message}\nUsage: AGENT_PRIVATE_KEY=0x… node --conditions=@agent-rental/source --import tsx examples/x402-agent/agent.ts [path/to/stack.json]\n(or RPC_URL, IDENTITY_REGISTRY and IPFS_GATEWAY instead of stack.json)`);
}

export function readSettings(argv: string[], env: NodeJS.ProcessEnv): AgentSettings {
  const stackPath = argv[0];
  const stack: StackFile = stackPath ? (JSON.parse(readFileSync(stackPath, "utf8")) as StackFile) : {};
  const privateKey = env.AGENT_PRIVATE_KEY;
  if (!privateKey || !isHex(privateKey) || privateKey.length !== 66) fail("AGENT_PRIVATE_KEY must be the wallet's private key (0x + 64 hex).");
  const rpcUrl = env.RPC_URL ?? stack.rpc_url;
  if (!rpcUrl) fail("RPC_URL (or stack.json's rpc_url) is needed.");
  const identityRegistry = env.IDENTITY_REGISTRY ?? stack.contracts?.identity_registry;
  if (!identityRegistry || !isAddress(identityRegistry)) fail("IDENTITY_REGISTRY (or stack.json's contracts.identity_registry) must be an address.");
  // The local stack serves its content-addressed files at GET /v1/metadata/<cid>; elsewhere, any gateway.
  const ipfsGateway = env.IPFS_GATEWAY ?? (stack.api_url ? `${stack.api_url.replace(/\/+$/, "")}/v1/metadata/` : "https://ipfs.io/ipfs/");
  const maxPayment = env.MAX_PAYMENT ?? "1";
  if (!/^\d+(\.\d+)?$/.test(maxPayment)) fail("MAX_PAYMENT must be a number of whole tokens, such as 1 or 0.5.");
  return { privateKey: privateKey as Hex, rpcUrl, identityRegistry, ipfsGateway, listingName: env.LISTING_NAME || undefined, maxPayment, fromBlock: BigInt(env.FROM_BLOCK ?? "0") };
}
