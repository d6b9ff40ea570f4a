// Bundles the declarative agent runtime (src/runtime/agent.ts) into one ES module,
// dist/runtime/agent.mjs, which a sandbox imports for each run. isolated-vm (a native addon, used only by
// js_eval) stays outside the bundle: its prebuilt binaries for this platform and a loader are copied to
// dist/runtime/node_modules/isolated-vm, so the sandbox resolves it inside the one directory it may read.
//
// What the bundle leaves out, to keep the import small (see docs/design/runtime.md, "Bundle"):
//  - the undici package: the runtime uses Node's own fetch, and the Agent class of the undici inside
//    Node with the egress guard's connector (built by undici's connector builder, a small file);
//  - the AI gateway provider, which `ai` loads for string model ids (the runtime always passes a model);
//  - zod's translated error messages other than English.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { runtimeTrimPlugin } from "./runtime-trim-plugin.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export interface BuildRuntimeOptions {
  /** Output directory (default: dist/runtime in the repository). */
  outDir?: string;
}

export interface BuildRuntimeResult {
  /** Absolute path of the bundled entry (`<outDir>/agent.mjs`): the RunSpec's `entry`. */
  entry: string;
  /** The directory a sandbox must be allowed to read (`allowFsRead`). */
  dir: string;
  /** Size of the entry module in bytes. */
  bytes: number;
  /** Size of the entry and every chunk in bytes (the provider chunks are loaded one per run). */
  totalBytes: number;
}

/** Bundles the runtime and copies isolated-vm next to it. */
export async function buildRuntime(options: BuildRuntimeOptions = {}): Promise<BuildRuntimeResult> {
  const dir = options.outDir ?? join(root, "dist/runtime");
  // Built beside the directory, then swapped in by two renames: a process running agents from the
  // directory (another `npm start`, a test's sandbox) never meets it half deleted or half written.
  const staging = `${dir}.build-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  await build({
    entryPoints: { agent: join(root, "src/runtime/agent.ts") },
    outdir: staging,
    outExtension: { ".js": ".mjs" },
    // each model provider's client in its own chunk, loaded by the run that uses it
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    minify: true,
    legalComments: "none",
    external: ["isolated-vm"],
    // the bundled CommonJS (undici's connector) calls require for Node built-ins
    banner: { js: 'import { createRequire as __runtimeRequire } from "node:module"; const require = __runtimeRequire(import.meta.url);' },
    plugins: [runtimeTrimPlugin(root)],
    logLevel: "warning",
  });
  copyIsolatedVm(join(staging, "node_modules"));
  const retired = `${dir}.old-${process.pid}-${Date.now()}`;
  if (existsSync(dir)) renameSync(dir, retired);
  renameSync(staging, dir);
  rmSync(retired, { recursive: true, force: true });
  const entry = join(dir, "agent.mjs");
  const chunks = readdirSync(join(dir, "chunks")).map((file) => statSync(join(dir, "chunks", file)).size);
  const bytes = statSync(entry).size;
  return { entry, dir, bytes, totalBytes: bytes + chunks.reduce((a, b) => a + b, 0) };
}

/** isolated-vm's package.json and this platform's prebuilt binaries, with a loader of ours in place of
 * its node-gyp-build one: node-gyp-build probes files outside the package (e.g. /etc/alpine-release),
 * which the sandbox's permission model refuses. The C library is the build machine's; the binary for the
 * running Node's ABI is picked at load time. */
function copyIsolatedVm(modulesDir: string): void {
  const source = join(root, "node_modules/isolated-vm");
  const target = join(modulesDir, "isolated-vm");
  rmSync(target, { recursive: true, force: true });
  const platform = `${process.platform}-${process.arch}`;
  const libc = process.platform === "linux" ? (isGlibc() ? "glibc" : "musl") : undefined;
  const prebuilds = join(source, "prebuilds", platform);
  const binaries = existsSync(prebuilds) ? readdirSync(prebuilds).filter((file) => file.endsWith(".node") && (libc === undefined || file.includes(`.${libc}.`))) : [];
  if (binaries.length === 0) throw new Error(`isolated-vm has no prebuilt binary for ${platform}${libc ? ` (${libc})` : ""}`);
  mkdirSync(join(target, "prebuilds", platform), { recursive: true });
  for (const file of binaries) cpSync(join(prebuilds, file), join(target, "prebuilds", platform, file));
  for (const file of ["package.json", "LICENSE"]) cpSync(join(source, file), join(target, file));
  const suffix = libc ? `.${libc}` : "";
  writeFileSync(
    join(target, "isolated-vm.js"),
    `"use strict";\nmodule.exports = require(\`./prebuilds/${platform}/isolated-vm.abi\${process.versions.modules}${suffix}.node\`).ivm;\n`,
  );
}

function isGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return typeof report?.header?.glibcVersionRuntime === "string";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = performance.now();
  const { entry, bytes, totalBytes } = await buildRuntime();
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  process.stdout.write(`runtime bundle: ${entry} (${kib(bytes)}; ${kib(totalBytes)} with its chunks) in ${(performance.now() - started).toFixed(0)} ms\n`);
}
