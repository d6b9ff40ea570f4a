// `npm run deploy -- --network <name>`: deploys the marketplace on a named network and names the
// ERC-8004 registries the service uses there, deploys the token marketplace taking the network's USDC,
// then writes the addresses where the cloud app reads them (stacks/deployments/<network>.json, read by
// stacks/common.ts at `sst deploy`).
//
//   RPC_URL               a node of the network (its chain id must be the profile's)
//   DEPLOYER_PRIVATE_KEY  the account that pays for the deployment (never printed)
//   AUTHORITY_ADDRESS     the protocol authority (default: the deployer)
//   FEE_RECIPIENT         the receiver of protocol fees (default: the deployer)
//   AUTHORITY_PRIVATE_KEY the authority's key, when it is not the deployer: used once, to allow USDC on
//                         the token marketplace (never printed); without it the command says the call
//                         the authority must send
//
//   --network <name>      local, base-sepolia, base, ethereum-sepolia, ethereum
//   --deploy-registries   deploy ERC-8004 registries of the service's own instead of naming the
//                         network's canonical ones
//   --usdc <address>      the token the token marketplace takes instead of the network's USDC (a
//                         network without one, a rehearsal node)
//   --without-tokens      deploy no token marketplace
//   --out <file>          where to write the record (default stacks/deployments/<network>.json)
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { encodeFunctionData } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { DeployInputError, deployToNetwork } from "../src/chain/deploy-network.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function fail(message: string): never {
  process.stderr.write(`\n✗ ${message}\n\n`);
  process.exit(1);
}

let args;
try {
  args = parseArgs({ options: { network: { type: "string" }, "deploy-registries": { type: "boolean", default: false }, usdc: { type: "string" }, "without-tokens": { type: "boolean", default: false }, out: { type: "string" } }, strict: true, allowPositionals: false }).values;
} catch (error) {
  fail(`${(error as Error).message}. Usage: npm run deploy -- --network <name> [--deploy-registries] [--usdc <address> | --without-tokens] [--out <file>]`);
}

try {
  const deployment = await deployToNetwork({
    network: args.network,
    rpcUrl: process.env.RPC_URL,
    deployerPrivateKey: process.env.DEPLOYER_PRIVATE_KEY,
    authority: process.env.AUTHORITY_ADDRESS,
    feeRecipient: process.env.FEE_RECIPIENT,
    deployRegistries: args["deploy-registries"],
    usdc: args.usdc,
    withoutTokens: args["without-tokens"],
    authorityPrivateKey: process.env.AUTHORITY_PRIVATE_KEY,
    progress: (line) => process.stderr.write(`  · ${line}\n`),
  });
  const file = resolve(args.out ?? join(root, "stacks/deployments", `${deployment.network}.json`));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(deployment, null, 2) + "\n");
  const tokens = deployment.token_marketplace;
  const waiting = tokens?.tokens.filter((token) => !token.allowed) ?? [];
  process.stdout.write(
    [
      "",
      `  Deployed on ${deployment.network} (chain ${deployment.chain_id})`,
      `  Marketplace  ${deployment.marketplace.address}  (block ${deployment.marketplace.deploy_block})`,
      `  Authority    ${deployment.authority}`,
      `  Fees to      ${deployment.fee_recipient}`,
      `  ERC-8004     identity ${deployment.erc8004.identity_registry}, reputation ${deployment.erc8004.reputation_registry}${deployment.erc8004.deployed_here ? " (deployed now)" : " (the network's canonical registries)"}`,
      ...(tokens
        ? [`  Tokens       ${tokens.address}  (block ${tokens.deploy_block}), taking ${tokens.tokens.map((t) => `${t.symbol} ${t.address}${t.eip3009 ? " (EIP-3009: x402)" : ""}${t.allowed ? "" : " (not allowed yet)"}`).join(", ")}`]
        : ["  Tokens       no token marketplace"]),
      `  Written to   ${file}`,
      // The authority's one step left: without its key here, it allows the token itself.
      ...waiting.map((t) => `  Then         the authority ${deployment.authority} sends to ${tokens!.address} setTokenAllowed(${t.address}, true): data ${encodeFunctionData({ abi: tokenMarketplaceAbi, functionName: "setTokenAllowed", args: [t.address, true] })}`),
      `  Next         NETWORK=${deployment.network} npx sst deploy --stage <stage>`,
      "",
    ].join("\n"),
  );
} catch (error) {
  if (error instanceof DeployInputError) fail(error.message);
  // A failure of the node or of a transaction: viem's short message, never the request it sent.
  fail(`The deployment failed: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}`);
}
