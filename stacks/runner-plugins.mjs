// esbuild plugins of the runner function's bundle (stacks/runner.ts, `nodejs.plugins`): the same trim the
// local sandbox bundle gets, so the runner loads the AI SDK without the undici package, the AI gateway or
// zod's translations.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeTrimPlugin } from "../scripts/runtime-trim-plugin.mjs";

export default [runtimeTrimPlugin(join(dirname(fileURLToPath(import.meta.url)), ".."))];
