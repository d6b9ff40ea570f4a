// Builds the dashboard (web/) to static files in web/dist: type-checks it (strict), then bundles it
// with Vite. Skipped when nothing it reads changed since the last build (a digest in .build/web.stamp),
// like the contract and runtime builds. `--force` rebuilds regardless.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const web = join(root, "web");
const stampFile = join(root, ".build/web.stamp");

/** Everything the build reads: the app, its config, the shared core (the ABI, the manifest rules) and the SDK. */
function sourceDigest(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(join(web, "src"));
  walk(join(web, "public"));
  walk(join(root, "packages/core/src"));
  walk(join(root, "sdk/src"));
  for (const file of ["web/index.html", "web/vite.config.ts", "web/tsconfig.json", "web/package.json", "packages/core/package.json", "sdk/package.json", "package-lock.json"]) {
    const path = join(root, file);
    if (existsSync(path)) hash.update(file).update(readFileSync(path));
  }
  return hash.digest("hex");
}

const digest = sourceDigest();
const force = process.argv.includes("--force");
if (!force && existsSync(stampFile) && readFileSync(stampFile, "utf8") === digest && existsSync(join(web, "dist/index.html"))) process.exit(0);

const began = performance.now();
process.stderr.write("Building the dashboard (web/)...\n");
const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}` };
execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", "web/tsconfig.json", "--noEmit"], { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
const { build } = await import("vite");
await build({ configFile: join(web, "vite.config.ts"), logLevel: "warn" });
mkdirSync(dirname(stampFile), { recursive: true });
writeFileSync(stampFile, digest);
process.stderr.write(`Dashboard built in ${((performance.now() - began) / 1000).toFixed(1)} s.\n`);
