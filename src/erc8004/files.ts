// ERC-8004's off-chain files as the service writes them: the agent registration file behind an
// agent's URI, and the feedback file behind a feedback's URI. Both are content-addressed like listing
// metadata (canonical JSON, ipfs://<cid>, served at /v1/metadata/<cid>); the feedback file's bytes are
// also what its on-chain keccak256 hash is of.
import { keccak256, type Hex } from "viem";
import { z } from "zod";
import type { Services } from "./services.ts";
import { canonicalJson, cidOf, CID_SHAPE } from "../registration/cid.ts";

export const REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";
/** The MCP revision the endpoint speaks (@modelcontextprotocol/sdk). */
export const MCP_VERSION = "2025-11-25";
/** The tag of a feedback that is a rating: a score from 0 to 100 (the ERC's "starred"). */
export const RATING_TAG = "starred";
/** The largest feedback file the indexer reads; the service's own are a few KiB. */
export const MAX_FEEDBACK_FILE_BYTES = 64 * 1024;

/** `eip155:<chainId>:<address>`: a registry's (or a wallet's) chain-qualified name. */
export function caip10(chainId: number, address: string): string {
  return `eip155:${chainId}:${address}`;
}

export interface RegistrationFile {
  type: typeof REGISTRATION_TYPE;
  name: string;
  description: string;
  image: string;
  services: { name: string; endpoint: string; version?: string }[];
  /** Payable by x402: a per-task listing priced in an EIP-3009 token (src/listings/currency.ts x402TokenOf). */
  x402Support: boolean;
  active: boolean;
  registrations: { agentId: number; agentRegistry: string }[];
  supportedTrust: ["reputation"];
}

/** A square with the title's initial, as a data URI: the image ERC-721 apps show (listings carry none). */
export function listingImage(title: string): string {
  const initial = ([...title.trim()][0] ?? "A").toUpperCase().replace(/[<>&"']/g, "A");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#1f2937"/><text x="128" y="168" font-family="sans-serif" font-size="128" fill="#f9fafb" text-anchor="middle">${initial}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
}

/** Stores a JSON document content-addressed; returns its URI, CID, bytes and keccak256. */
export async function storeContentAddressed(services: Pick<Services, "blobs">, document: unknown): Promise<{ uri: string; cid: string; bytes: Buffer; hash: Hex }> {
  const bytes = Buffer.from(canonicalJson(document), "utf8");
  const cid = cidOf(bytes);
  await services.blobs.put(`ipfs/${cid}`, bytes, "application/json");
  return { uri: `ipfs://${cid}`, cid, bytes, hash: keccak256(bytes) };
}

/** The CID of an ipfs://<cid> URI the service could hold, else null. */
export function cidOfUri(uri: string): string | null {
  const match = /^ipfs:\/\/([a-z2-7]+)$/.exec(uri);
  return match && CID_SHAPE.test(match[1]!) ? match[1]! : null;
}

const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const hexAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const digits = z.string().regex(/^\d{1,78}$/);

/** The run receipt a feedback file carries: the receipt's fields and where it is logged. */
export const RunReceiptProofSchema = z.object({
  marketplace: z.string().max(100),
  batchIndex: digits,
  receipt: z.object({
    runId: hex32,
    listingId: hex32,
    renter: hexAddress,
    status: z.number().int().min(0).max(255),
    costWei: digits,
    durationMs: digits,
  }),
  proof: z.array(hex32).max(64),
  root: hex32,
  leaf: hex32,
  txHash: hex32,
});
export type RunReceiptProof = z.infer<typeof RunReceiptProofSchema>;

/** A feedback file as the indexer reads it: the ERC's required fields and our run receipt. Fields
 * beyond these are allowed (the ERC lets a file carry more) and ignored. */
export const FeedbackFileSchema = z.object({
  agentRegistry: z.string().max(200),
  agentId: z.union([z.number().int().nonnegative(), digits]),
  clientAddress: z.string().max(200),
  createdAt: z.string().max(40),
  value: z.number(),
  valueDecimals: z.number().int().min(0).max(18),
  tag1: z.string().max(200).optional(),
  text: z.string().max(4000).nullable().optional(),
  run: z.object({ runId: z.string().max(100) }).optional(),
  runReceipt: RunReceiptProofSchema,
});
export type FeedbackFile = z.infer<typeof FeedbackFileSchema>;
