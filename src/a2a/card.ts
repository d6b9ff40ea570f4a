// Every published listing is an A2A v1.0 agent: its Agent Card, built from the listing (title,
// description, category, rental model and price, creator, sample outputs) and its public metadata (the
// manifest's input and output schemas, tools), describes the one JSON-RPC endpoint the agent answers at
// (`{api}/a2a/{agent_id}`), the bearer credentials it takes (an API key or a wallet JWT), and carries the
// service's signature. The card's URL is what other registries (ERC-8004's registration file) point at.
import { createHash } from "node:crypto";
import { AgentCard, AGENT_CARD_PATH, type AgentExtension, type AgentSkill } from "@a2a-js/sdk";
import { getAddress } from "viem";
import { formatAmount, x402TokenOf } from "../listings/currency.ts";
import { marketAddress } from "../chain/client.ts";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { resolveAgentId } from "../execution/access.ts";
import { getAgent } from "../listings/listing.store.ts";
import { getChainListing } from "../listings/chain-listing.store.ts";
import { loadListing, type Listing } from "../listings/catalogue.ts";
import { knownAgent, type AgentMetadata } from "../mcp/agent-tools.ts";
import { processCache } from "../cache.ts";
import { OAUTH_ROUTES } from "../oauth/provider.ts";
import { AUTHORIZATION_SERVER_METADATA_PATH } from "../oauth/resources.ts";
import { OAUTH_SCOPE_WORDS } from "../oauth/scopes.ts";

/** The A2A protocol versions the endpoint speaks: v1.0, and v0.3's method names and shapes. */
export const A2A_VERSIONS = ["1.0", "0.3"] as const;

/** The JSON-RPC endpoint of an agent. */
export function a2aEndpointUrl(apiBase: string, agentId: string): string {
  return `${apiBase.replace(/\/+$/, "")}/a2a/${agentId}`;
}

/** The agent's card: `{api}/a2a/{agent_id}/.well-known/agent-card.json`. */
export function agentCardUrl(apiBase: string, agentId: string): string {
  return `${a2aEndpointUrl(apiBase, agentId)}/${AGENT_CARD_PATH}`;
}

/** The key set the cards' signatures name. */
export function jwksUrl(apiBase: string): string {
  return `${apiBase.replace(/\/+$/, "")}/.well-known/jwks.json`;
}

/** The API's public base URL, from configuration alone: API_URL (the cloud's stage URL; the local
 * stack's own address), else the address a local server listens at (127.0.0.1 and PORT). Never the
 * request's Host header, which the caller writes: the OAuth issuer and the signed Agent Cards name this
 * base (docs/design/decisions/0101-the-api-names-itself-from-configuration.md). */
export function apiBaseOf(services: Pick<Services, "config">): string {
  return (services.config.API_URL ?? `http://127.0.0.1:${services.config.PORT}`).replace(/\/+$/, "");
}

/** A served card: its JSON text and the entity tag of its content. */
export interface ServedCard {
  json: string;
  etag: string;
}

const OAUTH_HELP =
  "OAuth 2.1 authorization code with PKCE (S256), the person approving in the service's dashboard with their wallet. Register by RFC 7591 or use a Client ID Metadata Document; ask for the resource {api} (every agent) or {api}/a2a/{agent_id} (this one). The token runs the agents the person rents, paid from their rentals.";

const BEARER_HELP =
  "Send Authorization: Bearer <token> on every request. The token is an API key (created in the dashboard, or POST /v1/keys) or a wallet-signature JWT (GET /v1/auth/challenge, sign it, POST /v1/auth/token). The wallet must hold a rental of the listing, bought on-chain.";

/** What a JSON Schema's top level says about the input, in a line. */
function shapeOf(schema: unknown): string {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return "any JSON";
  const s = schema as { type?: unknown; properties?: unknown; required?: unknown };
  if (s.type === "string") return "text";
  if (s.type === "object" && s.properties && typeof s.properties === "object") {
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : []);
    const fields = Object.entries(s.properties as Record<string, { type?: unknown }>).map(([name, field]) => `${name}${required.has(name) ? "" : "?"}: ${typeof field?.type === "string" ? field.type : "any"}`);
    return `an object {${fields.join(", ")}}`;
  }
  return typeof s.type === "string" ? s.type : "any JSON";
}

/** An example input from the schema: its own first example, else its properties with placeholder values. */
function exampleInput(schema: unknown): string | undefined {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return undefined;
  const s = schema as { examples?: unknown; properties?: unknown; type?: unknown };
  if (Array.isArray(s.examples) && s.examples.length > 0) return JSON.stringify(s.examples[0]);
  if (s.type !== "object" || !s.properties || typeof s.properties !== "object") return undefined;
  const placeholder = (field: { type?: unknown; enum?: unknown }) =>
    Array.isArray(field?.enum) ? field.enum[0] : field?.type === "number" || field?.type === "integer" ? 0 : field?.type === "boolean" ? false : field?.type === "array" ? [] : field?.type === "object" ? {} : "…";
  return JSON.stringify(Object.fromEntries(Object.entries(s.properties as Record<string, { type?: unknown; enum?: unknown }>).map(([name, field]) => [name, placeholder(field)])));
}

const priceLine = (listing: Listing, priceWei: string, x402: boolean) => {
  const price = formatAmount(BigInt(priceWei), listing.currency);
  if (listing.rental_model === "per_query") return `per task, ${price} a run from a prepaid balance${x402 ? ", or paid per run by x402 (exact, EIP-3009) with no rental" : ""}`;
  return listing.rental_model === "subscription" ? `subscription, ${price} for 30 days` : `one-time rental, ${price}`;
};

/** The A2A x402 payments extension (google-agentic-commerce/a2a-x402, spec v0.2): its canonical URI,
 * declared in the card's `capabilities.extensions` by an agent that takes x402 payments. */
export const X402_EXTENSION_URI = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

/** What an x402-payable listing accepts (the option of its PAYMENT-REQUIRED): the card's extension params. */
export interface X402Offer {
  network: `eip155:${number}`;
  asset: string;
  /** The price of one run, in the token's smallest unit. */
  amount: string;
  payTo: string;
  /** The token's EIP-712 domain. */
  extra: { name: string; version: string };
}

/** The card's x402 extension: not required (a bearer credential also runs the agent); its metadata keys
 * are the extension's `x402.payment.status|required|payload|receipts`. */
export function x402Extension(offer: X402Offer): AgentExtension {
  return {
    uri: X402_EXTENSION_URI,
    description: "Supports payments using the x402 protocol for on-chain settlement: one run paid by an EIP-3009 authorization (scheme exact), without a rental or a credential.",
    required: false,
    params: { x402Version: 2, scheme: "exact", ...offer },
  };
}

/** The card of a published listing, as the SDK's type (before it is signed and converted for the wire).
 * `x402`: what the listing accepts by x402, when it is payable so (a per-task listing in an EIP-3009 token). */
export function buildAgentCard(options: { listing: Listing; agentId: string; priceWei: string; metadata: AgentMetadata | null; apiBase: string; dashboardBase: string; x402?: X402Offer | undefined }): AgentCard {
  const { listing, agentId, metadata, apiBase } = options;
  const endpoint = a2aEndpointUrl(apiBase, agentId);
  const outputSchema = metadata?.output_schema as { type?: unknown } | undefined;
  const outputModes = outputSchema?.type === "string" ? ["text/plain"] : ["application/json"];
  const tools = Array.isArray(metadata?.tools) ? metadata.tools.filter((t): t is string => typeof t === "string") : [];
  const example = exampleInput(metadata?.input_schema);
  const skill: AgentSkill = {
    id: agentId,
    name: listing.title,
    description: [
      listing.description,
      `Send the task as a text part and the input as a data part: ${shapeOf(metadata?.input_schema)} (the input schema is at ${options.apiBase}/v1/metadata/${listing.metadata_uri.replace(/^ipfs:\/\//, "")}).`,
      `Rental: ${priceLine(listing, options.priceWei, options.x402 !== undefined)}.`,
      ...(listing.sample_output.length > 0 ? [`Sample output: ${listing.sample_output[0]}`] : []),
    ].join("\n\n"),
    tags: [...listing.category, listing.rental_model.replace("_", "-"), ...tools],
    examples: [...(example ? [example] : []), ...listing.sample_output.slice(0, 2)],
    inputModes: ["text/plain", "application/json"],
    outputModes,
    securityRequirements: [],
  };
  return {
    name: listing.title,
    description: listing.description,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({ url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion })),
    provider: { organization: listing.creator.display_name, url: `${options.dashboardBase}/listings/${listing.id}` },
    // Content-addressed: the version changes exactly when the agent's manifest does.
    version: listing.metadata_uri.replace(/^ipfs:\/\//, ""),
    documentationUrl: `${apiBase}/v1/metadata/${listing.metadata_uri.replace(/^ipfs:\/\//, "")}`,
    capabilities: { streaming: true, pushNotifications: false, extensions: options.x402 ? [x402Extension(options.x402)] : [], extendedAgentCard: false },
    securitySchemes: {
      apiKey: { scheme: { $case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "API key", description: BEARER_HELP } } },
      walletJwt: { scheme: { $case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "JWT", description: BEARER_HELP } } },
      // An agent acting for a person signs in with OAuth, the person approving in the dashboard.
      oauth: {
        scheme: {
          $case: "oauth2SecurityScheme",
          value: {
            description: OAUTH_HELP,
            flows: { flow: { $case: "authorizationCode", value: { authorizationUrl: `${apiBase}${OAUTH_ROUTES.authorization}`, tokenUrl: `${apiBase}${OAUTH_ROUTES.token}`, refreshUrl: `${apiBase}${OAUTH_ROUTES.token}`, scopes: { "tasks:run": OAUTH_SCOPE_WORDS["tasks:run"] }, pkceRequired: true } } },
            oauth2MetadataUrl: `${apiBase}${AUTHORIZATION_SERVER_METADATA_PATH}`,
          },
        },
      },
    },
    // Any one credential: each requirement names one scheme (OAuth with the tasks:run scope).
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }, { schemes: { walletJwt: { list: [] } } }, { schemes: { oauth: { list: ["tasks:run"] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: outputModes,
    skills: [skill],
    signatures: [],
  };
}

/** Signed cards by the hash of their content: the same content is signed once per process, so a
 * card's bytes (and its ETag) stay put between requests. */
const signedCards = processCache<ServedCard>(1024);

/**
 * The served card of `agentIdParam` (an agent id, listing id or on-chain id): 404 listing_not_found for
 * an unknown or unpublished listing, 400 invalid_listing_id for a malformed id.
 */
export async function servedAgentCard(services: Services, agentIdParam: string, apiBase: string): Promise<ServedCard> {
  const onChainId = await resolveAgentId(services, agentIdParam);
  const [listing, agent, chain] = await Promise.all([loadListing(services.tables, onChainId), getAgent(services.tables, onChainId), getChainListing(services.tables, onChainId)]);
  if (!listing || !agent || !chain?.price_wei) throw new ApiError("listing_not_found", `No published agent ${agentIdParam}.`);
  const known = await knownAgent(services, listing.metadata_uri);
  const priceWei = String(chain.price_wei);
  const dashboardBase = (services.config.DASHBOARD_URL ?? apiBase).replace(/\/+$/, "");
  const token = x402TokenOf(services.chain, listing);
  const x402 = token
    ? { network: `eip155:${services.config.CHAIN_ID}` as const, asset: getAddress(token.address), amount: priceWei, payTo: getAddress(marketAddress(services.chain, "token")), extra: { name: token.name, version: token.version } }
    : undefined;
  const card = AgentCard.toJSON(buildAgentCard({ listing, agentId: agent.agent_id, priceWei, metadata: known.metadata, apiBase, dashboardBase, x402 })) as Record<string, unknown>;
  const unsigned = JSON.stringify(card);
  const etag = `"${createHash("sha256").update(unsigned).digest("base64url").slice(0, 27)}"`;
  const signer = services.cardSigner;
  if (!signer) return { json: unsigned, etag };
  const hit = signedCards.get(signer, etag);
  if (hit) return hit;
  const signature = await signer.sign(card, jwksUrl(apiBase));
  const served = { json: JSON.stringify({ ...card, signatures: [signature] }), etag };
  signedCards.set(signer, etag, served);
  return served;
}
