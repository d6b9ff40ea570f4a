// One vocabulary: every list of the product's words (categories, rental models, statuses, the
// contract's enums) is written once, in packages/core/src/vocabulary.ts. This check finds a second
// copy anywhere else in the project's TypeScript: an array of string literals, a union of string literal types
// (including the array inside `z.enum([...])`) or an enum map such as `{ one_time: 0, subscription: 1,
// per_query: 2 }` that spells out a list of the vocabulary. A copy is
//  - the whole list, in any order (each value once), or
//  - three or more distinct values of one list and nothing else (a partial copy that falls behind
//    when the list grows).
// Test data that repeats a value (`["completed", "failed", "completed"]`) is not a definition.
//
// Not scanned: the SDK (sdk/, packed alone; its types are generated from the OpenAPI document, which
// takes its enums from the vocabulary) and generated code. The TypeScript parser reads the files, so
// words in comments and strings are not copies.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as vocabulary from "@agent-rental/core/vocabulary";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Lists of the vocabulary whose subsets are written on purpose, each with its reason. */
const NOT_COPIED: Record<string, string> = {
  ERROR_CODES: "each route and protocol declares the codes it answers with: a subset of the codes by design, checked by the OpenAPI suite",
};

/**
 * Every list the vocabulary exports, by name: the API's lists before the contract's orderings of the
 * same words (`CHAIN_*`), so a partial copy is reported against the list a reader would import.
 */
export const LISTS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(vocabulary as Record<string, unknown>)
    .filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((v) => typeof v === "string") && !NOT_COPIED[entry[0]])
    .sort(([a], [b]) => Number(a.startsWith("CHAIN_")) - Number(b.startsWith("CHAIN_")) || a.localeCompare(b))
    .map(([name, list]) => [name, new Set(list)]),
);

const SCANNED = ["src", "packages/core/src", "cli/src", "web/src", "local", "test", "bench", "functions", "scripts", "stacks"];

/** Files that hold a copy on purpose, each with its reason. */
const ALLOWED: Record<string, string> = {
  "packages/core/src/vocabulary.ts": "the definitions",
  "test/boundaries/vocabulary.test.ts": "pins the specification's words, so a change to the vocabulary is a decision, not an accident",
};

export interface Copy {
  file: string;
  line: number;
  list: string;
  values: string[];
}

/** The list that `values` copies, if any (see the rules at the top). */
export function listCopied(values: readonly string[]): string | undefined {
  const distinct = new Set(values);
  if (distinct.size !== values.length || distinct.size < 2) return undefined;
  const within = [...LISTS].filter(([, list]) => [...distinct].every((v) => list.has(v)));
  const whole = within.find(([, list]) => list.size === distinct.size);
  if (whole) return whole[0];
  return distinct.size >= 3 ? within[0]?.[0] : undefined;
}

const stringOf = (node: ts.Node): string | undefined => (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined);

/** The values a node spells out as a list, or undefined when it is not a list of string literals. */
function valuesOf(node: ts.Node): string[] | undefined {
  if (ts.isArrayLiteralExpression(node)) {
    const values = node.elements.map(stringOf);
    return values.every((v): v is string => v !== undefined) ? values : undefined;
  }
  if (ts.isUnionTypeNode(node)) {
    const values = node.types.map((t) => (ts.isLiteralTypeNode(t) ? stringOf(t.literal) : undefined));
    return values.every((v): v is string => v !== undefined) ? values : undefined;
  }
  if (ts.isObjectLiteralExpression(node)) {
    // An enum map: each key a word, each value its position (0, 1, 2, ...).
    const entries = node.properties.map((p) => {
      if (!ts.isPropertyAssignment(p) || !ts.isNumericLiteral(p.initializer)) return undefined;
      const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
      return key === undefined ? undefined : ([key, Number(p.initializer.text)] as const);
    });
    if (entries.length < 2 || !entries.every((e) => e !== undefined)) return undefined;
    const positions = entries.map((e) => e![1]).sort((a, b) => a - b);
    return positions.every((n, i) => n === i) ? entries.map((e) => e![0]) : undefined;
  }
  return undefined;
}

/** The copies of vocabulary lists in one file's text (`file` is its path from the repository root). */
export function copiesOf(file: string, text: string): Copy[] {
  if (file in ALLOWED) return [];
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: Copy[] = [];
  const visit = (node: ts.Node) => {
    const values = valuesOf(node);
    const list = values && listCopied(values);
    if (list) {
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, list, values: values! });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ["generated", "node_modules", "dist"].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every copy in the project's TypeScript, and the number of files read. */
export function scanProject(): { copies: Copy[]; files: number } {
  const files = SCANNED.flatMap(sourceFiles);
  return { copies: files.flatMap((file) => copiesOf(file, readFileSync(join(root, file), "utf8"))), files: files.length };
}

function main(): number {
  const { copies, files } = scanProject();
  for (const c of copies) process.stdout.write(`${c.file}:${c.line}: [${c.values.join(", ")}] copies ${c.list}: import it from @agent-rental/core/vocabulary\n`);
  process.stdout.write(copies.length ? `vocabulary: ${copies.length} copied list(s)\n` : `vocabulary: every list is defined once (${files} files)\n`);
  return copies.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(main());
