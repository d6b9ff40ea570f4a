// Recomputes the creator analytics from the chain and the run log and compares them with the live
// roll-ups; with --write, replaces the live roll-ups with the rebuild. The service's configuration comes
// from the environment, as the API's does (the local stack's: see docs/guides/operator.md).
//
//   node --import tsx scripts/rebuild-analytics.ts                      # every listing: compare, exit 1 on a difference
//   node --import tsx scripts/rebuild-analytics.ts --listing 0x…        # one listing
//   node --import tsx scripts/rebuild-analytics.ts --write              # replace the live roll-ups (writers quiet)
import { parseArgs } from "node:util";
import { bootServices } from "../src/boot.ts";
import { compareWithLive, rebuildRollups, writeRebuild } from "../src/analytics/rebuild.ts";

const { values } = parseArgs({ options: { listing: { type: "string", multiple: true }, write: { type: "boolean", default: false } } });
const services = bootServices();
const rebuilt = await rebuildRollups({ tables: services.tables, chain: services.chain, deployBlock: services.config.MARKETPLACE_DEPLOY_BLOCK, ...(values.listing ? { listings: values.listing } : {}) });
const listings = values.listing ?? [...rebuilt.items.keys()].filter((pk) => pk.startsWith("roll#")).map((pk) => pk.slice("roll#".length));
process.stdout.write(`rebuilt ${listings.length} listing(s) from the chain up to block ${rebuilt.block ?? "none"} and the run log (${rebuilt.tokens.length} facts)\n`);
if (values.write) {
  const written = await writeRebuild(services.tables, rebuilt);
  process.stdout.write(`wrote ${written.items} roll-up items and ${written.facts} facts\n`);
} else {
  const differences = await compareWithLive(services.tables, rebuilt, listings);
  for (const d of differences) process.stdout.write(`${d.listing} ${d.sk}: live ${JSON.stringify(d.live)} rebuilt ${JSON.stringify(d.rebuilt)}\n`);
  process.stdout.write(differences.length === 0 ? "the live roll-ups are identical to the rebuild\n" : `${differences.length} item(s) differ\n`);
  process.exitCode = differences.length === 0 ? 0 : 1;
}
