// The JavaScript budget of the first page: what the browse page loads before it can show a listing
// (the entry chunk and everything it imports statically, per Vite's manifest of the built dashboard)
// is at most 200 KB gzipped, and the creator and review consoles are not part of it.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../web/dist");
export const FIRST_PAGE_BUDGET_BYTES = 200 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

/** The entry's files and those of its static imports, transitively (what the browser fetches first). */
export function firstPageFiles(manifest: Record<string, ManifestChunk>): string[] {
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry)?.[0];
  if (!entry) throw new Error("the manifest names no entry");
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const next of manifest[key]?.imports ?? []) visit(next);
  };
  visit(entry);
  return [...seen].map((k) => manifest[k]!.file);
}

describe("dashboard bundle budget", () => {
  const manifestFile = join(dist, ".vite/manifest.json");

  it("the browse page's first JavaScript is at most 200 KB gzipped", () => {
    expect(existsSync(manifestFile), "web/dist is missing: npm test builds it (npm run build:web)").toBe(true);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, ManifestChunk>;
    const files = firstPageFiles(manifest).filter((f) => f.endsWith(".js"));
    const gzipped = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(dist, f)), { level: 9 }).length, 0);
    process.stdout.write(`first-page JavaScript: ${files.length} files, ${(gzipped / 1024).toFixed(1)} KB gzipped (budget 200 KB)\n`);
    expect(gzipped).toBeLessThanOrEqual(FIRST_PAGE_BUDGET_BYTES);
  });

  it("loads the creator console, the review console and the playground only when opened", () => {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, ManifestChunk>;
    const first = new Set(firstPageFiles(manifest));
    for (const page of ["src/pages/creator/CreatorConsole.tsx", "src/pages/review/ReviewConsole.tsx", "src/pages/Playground.tsx"]) {
      expect(manifest[page], `${page} is not a chunk of its own`).toBeDefined();
      expect(first.has(manifest[page]!.file)).toBe(false);
    }
  });
});
