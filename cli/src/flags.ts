// Flags several commands share, described once.
import type { Flag } from "./cli.ts";

export const YES: Flag = { type: "boolean", short: "y", description: "confirm without asking (required when not on a terminal)" };
export const LIMIT: Flag = { type: "string", value: "<n>", description: "how many to show, 1 to 100 (default 20)" };
export const OFFSET: Flag = { type: "string", value: "<n>", description: "skip this many (paging)" };
export const RENTAL_MODEL: Flag = { type: "string", value: "<model>", description: "the rental model: one_time, subscription or per_query" };
export const DURATION: Flag = { type: "string", value: "<30d|90d|365d>", description: "subscription length: 30d (default), 90d or 365d; the price scales with it" };
export const RUNS: Flag = { type: "string", value: "<N>", description: "per_query: N runs at the listing's price" };
export const DEPOSIT: Flag = { type: "string", value: "<ETH>", description: "per_query: this much ETH instead of --runs" };
export const ALLOW_PRIVATE_HOSTS: Flag = { type: "boolean", description: "accept https URLs on private or loopback addresses (a local stack accepts them; the cloud does not)" };
