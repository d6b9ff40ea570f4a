// The shared core's light entry: the product's words. Heavier parts have subpaths of their own, so a
// bundle that needs only the words carries nothing else: "@agent-rental/core/manifest" (the manifest
// rules), "@agent-rental/core/agent-tools" (agents as tools), "@agent-rental/core/mcp" (the MCP tool
// server), "@agent-rental/core/marketplace" and "@agent-rental/core/token-marketplace" (the contracts' ABI and
// bytecode, generated), "@agent-rental/core/tokens" (the local tokens' ABIs and the TokenInfo shape).
export * from "./vocabulary.ts";
