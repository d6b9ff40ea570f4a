// Hardhat 3 configuration for the marketplace contract. The compiler is the solc-js build shipped by
// the npm package `solc`, so compiling never needs to download a compiler.
import { createRequire } from "node:module";
import { defineConfig } from "hardhat/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  solidity: {
    version: "0.8.37",
    path: require.resolve("solc/soljson.js"),
    settings: {
      // 2,000 runs, not more: at 10,000 the contract passes the 24,576-byte limit on deployed code
      // (EIP-170); 2,000 keeps about 3 KB below it, for a few tens of gas per call
      // (docs/benchmarks/gas.md).
      optimizer: { enabled: true, runs: 2_000 },
      evmVersion: "cancun",
    },
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
