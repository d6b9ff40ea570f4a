// Where the agent runtime's bundle lives: built by scripts/build-runtime.ts into dist/runtime/, the one
// directory a local sandbox may read.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNTIME_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../dist/runtime");
export const RUNTIME_ENTRY = join(RUNTIME_DIR, "agent.mjs");
