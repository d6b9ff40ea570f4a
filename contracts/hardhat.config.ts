// Hardhat 3 configuration for the marketplace contract. The compiler is the solc-js build shipped by
// the npm package `solc`, so compiling never needs to download a compiler.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "hardhat/config";

const require = createRequire(import.meta.url);

/** TokenMarketplace.sol and every Solidity test file that names it, as Hardhat names root files. */
function tokenMarketplaceRoots(): string[] {
  const tests = fileURLToPath(new URL("./test/", import.meta.url));
  const files = readdirSync(tests, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".sol"));
  const naming = files.filter((file) => readFileSync(join(tests, file), "utf8").includes("TokenMarketplace"));
  return ["contracts/src/TokenMarketplace.sol", ...naming.map((file) => `contracts/test/${file}`)];
}

export default defineConfig({
  solidity: {
    compilers: [
      {
        version: "0.8.37",
        path: require.resolve("solc/soljson.js"),
        settings: {
          // 2,000 runs, not more: at 10,000 the Marketplace passes the 24,576-byte limit on deployed code
          // (EIP-170); 2,000 keeps it below, for a few tens of gas per call (docs/benchmarks/gas.md).
          optimizer: { enabled: true, runs: 2_000 },
          evmVersion: "cancun",
        },
      },
    ],
    // The TokenMarketplace (the ETH contract's rules, plus tokens, permits and x402) passes the limit at
    // 2,000 runs once it holds the charge caps: 200 runs keep it below, for tens of gas per call
    // (decision 0195, docs/benchmarks/gas.md). Hardhat picks settings per compiled root file, so every
    // test file that deploys it compiles at 200 runs too: the tests run the bytecode that is deployed.
    overrides: Object.fromEntries(
      tokenMarketplaceRoots().map((root) => [
        root,
        { version: "0.8.37", path: require.resolve("solc/soljson.js"), settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" } },
      ]),
    ),
  },
  test: {
    solidity: {
      // Sized so the whole Solidity suite stays well under two minutes on two cores.
      fuzz: { runs: 256 },
      // failOnRevert: the handler only makes calls whose preconditions hold, so any revert is a bug.
      invariant: { runs: 128, depth: 64, failOnRevert: true },
    },
  },
  paths: {
    // Paths resolve from the repository root (the package that holds this config).
    sources: "contracts/src",
    tests: { solidity: "contracts/test" },
    artifacts: ".build/artifacts",
    cache: ".build/cache",
  },
});
