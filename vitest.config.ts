// Three lanes, run in this order by `npm test` (scripts/test.ts) and by `npx vitest run`:
//  - unit: pure modules, tests beside the code (src/**/*.test.ts, packages/*/src/**/*.test.ts), the
//    repository checks (test/boundaries) and the docs' checks (test/docs); no emulator, no chain, no
//    global setup.
//  - integration: the service on real emulators and a real chain started once by the global setup
//    (test/support/global-setup.ts); each file isolates itself with its own tables, queues and
//    contract deployment, so files share worker processes (and their loaded modules) instead of
//    paying a fresh process and a fresh module graph each.
//  - e2e: the product as a user meets it: the whole local stack (examples/ run against it), the dashboard in Chromium, the packed
//    packages installed into an empty folder; one file at a time (a browser and a stack take a core).
// `npx vitest run` runs the lanes in this order; `npm test` (scripts/test.ts) runs the e2e lane after
// the repository's checks, beside the integration lane. One lane alone: `npx vitest run --project unit`.
import { defineConfig } from "vitest/config";

const E2E = ["test/web/**/*.test.ts", "test/local/**/*.test.ts", "test/packages/**/*.test.ts", "test/examples/**/*.test.ts"];

// The workspace's packages (the SDK) resolve to their sources here (the "@agent-rental/source" export
// condition, as tsc's customConditions), to their built files once installed. The rest are vitest's
// own defaults (Vite's server conditions without "module").
const resolve = { conditions: ["@agent-rental/source", "node", "development|production"] };

export default defineConfig({
  test: {
    projects: [
      {
        extends: false,
        resolve,
        ssr: { resolve },
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "packages/*/src/**/*.test.ts", "test/boundaries/**/*.test.ts", "test/docs/**/*.test.ts"],
          testTimeout: 30_000,
          pool: "forks",
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: false,
        resolve,
        ssr: { resolve },
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: ["test/boundaries/**", "test/docs/**", ...E2E],
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: "forks",
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: false,
        resolve,
        ssr: { resolve },
        test: {
          name: "e2e",
          include: E2E,
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 30_000,
          // A page's answer to a click waits on the API, the chain and a browser that share two cores
          // with the other lanes: polls give it 10 s (vitest's default is 1 s), and pass as soon as it shows.
          expect: { poll: { timeout: 10_000 } },
          hookTimeout: 60_000,
          pool: "forks",
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
