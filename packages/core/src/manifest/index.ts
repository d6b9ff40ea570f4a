// The manifest rules, shared by the registration pipeline (the server), the CLI and the dashboard's
// editor, so a creator sees the server's own messages before submitting: the validator, the URL rules,
// the tool catalogue and the pattern rules (the ReDoS check of patterns runs on the server only).
export * from "./manifest.ts";
export * from "./hosts.ts";
export * from "./tools.ts";
export * from "./patterns.ts";
