// The typed client for the agent rental and task execution REST API.
export { AgentRentalClient, type AgentRentalClientOptions, type ExecuteOptions, type RunEventsOptions, type UploadOptions } from "./client.ts";
export { AgentRentalError, ApiError, AuthError, AccessError, NotFoundError, RateLimitError, type OnChainError } from "./errors.ts";
export { parseJson } from "./json.ts";
export type { AccountSigner, Eip1193Provider, Signer, SignerOptions } from "./signer.ts";
export type * from "./types.ts";
