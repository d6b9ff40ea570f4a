// The typed client for the agent rental and task execution REST API.
export { AgentRentalClient, type AgentRentalClientOptions, type ApiRequestOptions, type ExecuteOptions, type RunEventsOptions, type RunWalletOptions, type UploadOptions, type WaitForJobOptions } from "./client.ts";
export { AgentRentalError, ApiError, AuthError, AccessError, NotFoundError, RateLimitError, SpendLimitError, PaymentRequiredError, decodePaymentRequired, type AgentRentalErrorCode, type ClientErrorCode, type ErrorCode, type OnChainError, type SpendLimitHit, type PaymentRequired, type PaymentOption } from "./errors.ts";
export { parseJson } from "./json.ts";
export { formatListingPrice, formatUnitsExact, rentInToken, type RentInTokenOptions } from "./rent.ts";
export { analyticsByCurrency, formatAmount, type CurrencyAnalytics } from "./analytics.ts";
export type { PurchaseKind, TokenPaymentPath, TokenPurchaseQuote, TokenPurchaseResult } from "@agent-rental/core/token-purchase";
export type { AccountSigner, Eip1193Provider, Signer, SignerOptions } from "./signer.ts";
export { runProofMessage, runWalletSignature, WALLET_SIGNATURE_HEADER, type RunProofPurpose, type RunWalletSignatureOptions } from "./run-proof.ts";
export type * from "./types.ts";
// Agents as tools (framework-free): the generic tool definition, per-agent tools, the OpenAI-style adapter.
// The AI SDK adapter is "@agent-rental/sdk/ai", the MCP server "@agent-rental/sdk/mcp".
export {
  AGENT_TOOL_DESCRIPTION,
  AGENT_TOOL_NAME,
  AGENT_TOOL_PARAMETERS,
  AgentToolInputError,
  agentToolDefinition,
  formatToolOutput,
  parseAgentToolArguments,
  toolNameOf,
  type AgentToolArguments,
  type AgentToolDefinition,
  type AgentToolErrorInfo,
  type JsonSchemaObject,
} from "@agent-rental/core/agent-tools";
export { AgentRunFailedError, AgentToolCallError, describeToolError, formatToolError, runAgentTool, type AgentToolCallOptions, type UnfinishedRun } from "./tools/run.ts";
export { listRentedAgentTools, RENTED_AGENT_TOOL_PARAMETERS, type ListRentedAgentToolsOptions, type RentedAgentTool } from "./tools/rented.ts";
export { createOpenAIAgentTools, openAIAgentTool, type OpenAIAgentTools, type OpenAIAgentToolsOptions, type OpenAIFunctionTool, type OpenAIToolCallLike, type OpenAIToolMessage } from "./tools/openai.ts";
