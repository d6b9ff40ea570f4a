// The documentation's links: every relative link of the READMEs, CONTRIBUTING.md and docs/ must reach a
// file that exists, and a link to a section must reach a heading (or an explicit anchor) of that page, as
// GitHub names it. Every page under docs/ must be reachable from docs/README.md, so no page is orphaned
// by a move.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import GithubSlugger from "github-slugger";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { visit } from "unist-util-visit";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownUnder(path) : entry.name.endsWith(".md") ? [path] : [];
  });
}

const PAGES = [join(root, "README.md"), join(root, "CONTRIBUTING.md"), join(root, "cli/README.md"), join(root, "sdk/README.md"), ...markdownUnder(join(root, "docs"))].sort();

type Root = ReturnType<typeof fromMarkdown>;

const trees = new Map<string, Root>();
function parse(file: string): Root {
  let tree = trees.get(file);
  if (!tree) {
    tree = fromMarkdown(readFileSync(file, "utf8"), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    trees.set(file, tree);
  }
  return tree;
}

/** The link targets of a page: every link and link definition (images too), as written. */
function linksOf(file: string): string[] {
  const urls: string[] = [];
  visit(parse(file), (node) => {
    if (node.type === "link" || node.type === "definition" || node.type === "image") urls.push(node.url);
  });
  return urls;
}

const anchorSets = new Map<string, Set<string>>();
/** The anchors a page offers: its headings as GitHub slugs them, and explicit `id`s in its HTML. */
function anchorsOf(file: string): Set<string> {
  const known = anchorSets.get(file);
  if (known) return known;
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  anchorSets.set(file, anchors);
  visit(parse(file), (node) => {
    if (node.type === "heading") anchors.add(slugger.slug(toString(node)));
    if (node.type === "html") for (const match of node.value.matchAll(/\bid="([^"]+)"/g)) anchors.add(match[1]!);
  });
  return anchors;
}

const isExternal = (url: string) => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//");

/** A relative link's file (the page itself for `#anchor`) and its anchor, if any. */
function targetOf(page: string, url: string): { file: string; anchor: string | undefined } {
  const [path, anchor] = url.split("#", 2) as [string, string | undefined];
  const file = path ? resolve(dirname(page), decodeURI(path)) : page;
  return { file, anchor: anchor ? decodeURIComponent(anchor) : undefined };
}

describe("the documentation's links", () => {
  it("finds the pages it checks", () => {
    expect(PAGES.length).toBeGreaterThan(20);
    for (const page of PAGES) expect(existsSync(page)).toBe(true);
  });

  for (const page of PAGES) {
    const name = relative(root, page);
    it(`every relative link of ${name} reaches an existing file, and its section`, () => {
      const broken: string[] = [];
      for (const url of linksOf(page)) {
        if (isExternal(url)) continue;
        const { file, anchor } = targetOf(page, url);
        if (!existsSync(file)) {
          broken.push(`${url}: no file ${relative(root, file)}`);
          continue;
        }
        if (anchor && file.endsWith(".md") && statSync(file).isFile() && !anchorsOf(file).has(anchor)) {
          broken.push(`${url}: no heading or anchor "#${anchor}" in ${relative(root, file)}`);
        }
      }
      expect(broken, `${name} has broken links`).toEqual([]);
    });
  }

  it("reaches every page under docs/ from docs/README.md", () => {
    const seen = new Set<string>();
    const queue = [join(root, "docs/README.md")];
    while (queue.length) {
      const page = queue.shift()!;
      if (seen.has(page)) continue;
      seen.add(page);
      for (const url of linksOf(page)) {
        if (isExternal(url)) continue;
        const { file } = targetOf(page, url);
        const target = existsSync(file) && statSync(file).isDirectory() ? join(file, "README.md") : file;
        if (target.startsWith(join(root, "docs")) && target.endsWith(".md") && existsSync(target)) queue.push(target);
      }
    }
    const orphans = markdownUnder(join(root, "docs"))
      .filter((page) => !seen.has(page))
      .map((page) => relative(root, page));
    expect(orphans, "pages no link from docs/README.md leads to").toEqual([]);
  });
});
