// `npm start`: the whole service on this machine, on its embedded defaults. Ctrl-C (SIGINT) or
// SIGTERM stops every part of it, sent to this process or to npm (the script execs this process, so npm
// hands its signals straight here); npm killed outright stops it too (the parent watch below).
import { z } from "zod";
import { ConfigError, configSchema } from "../src/config.ts";
import { startStack, StackStartError, type RunningStack } from "./stack.ts";
import { MAX_BLOCK_TIME_MS } from "./chain.ts";

const port = z.coerce.number().int().min(1).max(65_535);
const settingsSchema = z.object({
  PORT: port.default(8787),
  CHAIN_PORT: port.default(8545),
  DYNAMODB_PORT: port.default(8000),
  AWS_EMULATOR_PORT: port.default(4566),
  LOCAL_DATA_DIR: z.string().min(1).default(".local"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Milliseconds between the local chain's blocks: 0 mines a block per transaction at once
   * (automine); 2000 is the pace of Base and OP chains. */
  CHAIN_BLOCK_TIME_MS: z.coerce.number().int().min(0).max(MAX_BLOCK_TIME_MS).default(0),
  /** "true" (the default): the DynamoDB emulator runs in a process of its own, its memory (LevelDB's,
   * which grows with the data) and its work apart from the API's, as DynamoDB's are in the cloud;
   * "false" embeds it in this process. */
  DYNAMODB_PROCESS: z.enum(["true", "false"]).default("true"),
  // Checked by the service's own rule, so a bad list is refused before anything starts.
  TRUSTED_PROXIES: z.string().default("").refine((text) => configSchema.shape.TRUSTED_PROXIES.safeParse(text).success, "must list IP addresses or CIDR ranges (a.b.c.d/0-32, IPv6/0-128), comma-separated"),
});

function fail(message: string): never {
  process.stderr.write(`\n✗ ${message}\n\n`);
  process.exit(1);
}

const parsed = settingsSchema.safeParse(process.env);
if (!parsed.success) {
  fail(`Invalid setting: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
}
const settings = parsed.data;
const began = performance.now();

let stack: RunningStack;
try {
  stack = await startStack({
    dataDir: settings.LOCAL_DATA_DIR,
    apiPort: settings.PORT,
    chainPort: settings.CHAIN_PORT,
    dynamoPort: settings.DYNAMODB_PORT,
    awsPort: settings.AWS_EMULATOR_PORT,
    logLevel: settings.LOG_LEVEL,
    blockTimeMs: settings.CHAIN_BLOCK_TIME_MS,
    trustedProxies: settings.TRUSTED_PROXIES,
    dynamoProcess: settings.DYNAMODB_PROCESS === "true",
    progress: (line) => process.stderr.write(`  · ${line}\n`),
    // The banner's notice when the chain's node dies and comes back while the stack runs.
    notice: (lines) => process.stderr.write(["", ...lines.map((line) => `  ${line}`), "", ""].join("\n")),
  });
} catch (error) {
  if (error instanceof StackStartError || error instanceof ConfigError) fail(error.message);
  throw error;
}

const { info } = stack;
const seconds = ((performance.now() - began) / 1000).toFixed(1);
const role = (name: string) => info.accounts.filter((a) => a.role === name).map((a) => a.address).join(", ");
process.stdout.write(
  [
    "",
    `  Agent rental service is running (ready in ${seconds} s)`,
    "",
    `  Dashboard    ${info.dashboard_url}          (connect a browser wallet on chain ${info.chain_id})`,
    `  API          ${info.api_url}/v1          (OpenAPI: ${info.api_url}/v1/openapi.json)`,
    `  Chain        ${info.rpc_url}  chain id ${info.chain_id}, ${info.block_time_ms ? `a block every ${info.block_time_ms} ms` : "a block per transaction"}`,
    `  Marketplace  ${info.contracts.marketplace}`,
    `  ERC-8004     identity ${info.contracts.identity_registry}, reputation ${info.contracts.reputation_registry}`,
    `  Authority    ${info.authority}`,
    `  Creators     ${role("creator")}`,
    `  Renters      ${role("renter")}`,
    `  Data         ${info.data_dir}${info.chain_rebuilt ? "  (fresh chain: chain-derived data rebuilt)" : ""}`,
    ...(info.interrupted_runs > 0 ? [`  Runs         ${info.interrupted_runs} run(s) left in flight by the last stop ended as failed, not charged`] : []),
    `  Demo key     ${String(info.demo.api_key)}  (renter ${String(info.demo.renter)})`,
    `  Demo agents  ${((info.demo.listings as { agent_id: string; rental_model: string }[] | undefined) ?? []).map((l) => `${l.agent_id} (${l.rental_model})`).join(", ")}`,
    `  Details      ${info.data_dir}/stack.json (accounts and their development keys)`,
    "",
    `  Try:  curl -H "Authorization: Bearer ${String(info.demo.api_key)}" ${info.api_url}/v1/credentials`,
    `        curl -H "Authorization: Bearer ${String(info.demo.api_key)}" "${info.api_url}/v1/listings?q=contract"`,
    `        curl -H "Authorization: Bearer ${String(info.demo.api_key)}" -H "content-type: application/json" ${info.api_url}/v1/execute -d '{"agent_id":"${String((info.demo.listings as { agent_id: string }[] | undefined)?.[0]?.agent_id ?? "")}","task":"Review this contract","input":{"contract":"The supplier accepts unlimited liability."}}'`,
    "",
    "  Press Ctrl-C to stop.",
    "",
  ].join("\n"),
);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\n  ${signal}: stopping the local stack...\n`);
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await stack.stop();
  process.stderr.write("  stopped.\n");
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGHUP", () => void shutdown("SIGHUP"));
// A parent killed outright (kill -9 of npm, a supervisor that ends only the process it started) cannot
// pass a signal on: re-parented, this process stops the stack as on SIGTERM, so no part keeps a port.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown("parent process gone");
}, 500).unref();
