// The shared core's light entry: the product's words. Heavier parts have subpaths of their own, so a
// bundle that needs only the words carries nothing else: "@agent-rental/core/manifest" (the manifest
// rules), "@agent-rental/core/agent-tools" (agents as tools), "@agent-rental/core/mcp" (the MCP tool
// server), "@agent-rental/core/marketplace" (the contract's ABI and bytecode, generated).
export * from "./vocabulary.ts";
