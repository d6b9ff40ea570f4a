// Agents as tools, without a client or a framework: the generic tool's definition and argument rules,
// a rented agent's own schemas as a tool's, and how outputs and errors read to a model. The SDK's
// adapters (OpenAI-style tools, the AI SDK, its stdio MCP server) and the API's remote MCP endpoint build
// on these.
export * from "./definition.ts";
export * from "./agent-schema.ts";
export * from "./names.ts";
