// Import boundaries, run by `npm test`. In the service's code (src/):
//  - storage: an AWS SDK module (`@aws-sdk/*`) is imported only by an adapter (src/adapters/) or by the
//    store of a kind of record (a `*.store.ts` file, which owns that record's keys and conditions); so
//    are the tables adapter's item calls (STORE_CALLS: a refused condition, batch reads and writes, a
//    partition count), and nothing else reaches for the document client (`tables.doc`);
//  - the chain: a viem action that reads or writes the contract, reads its events, or sends a
//    transaction is called only under src/chain/;
//  - wiring: the whole bag of services (src/services.ts) is imported only by the wiring (WIRING: the
//    API, the jobs, the boot); an area's code takes the narrow type its src/<area>/services.ts names.
// Between the workspace's packages (PACKAGES: the shared core, the SDK, the CLI, the dashboard, and the
// service, which is everything else: src/, functions/, local/, scripts/, bench/, stacks/):
//  - package: a relative import never leaves its package; another package is imported by its name
//    (`@agent-rental/core`, `@agent-rental/sdk`), and only a package below it (LAYERS: the core under
//    everything, the SDK under the CLI and the dashboard);
//  - core: the shared core imports no Node built-in (it runs in browsers too).
// The suites under test/ test every package's inner modules, so they may import any package's sources.
// Files that break a rule today are listed below, each with the reason it still does; the check fails
// on any other file that breaks a rule, and on a listed file that no longer does (remove it from the
// list). The lists only shrink.
//
// The TypeScript parser reads the files (rather than a regular expression) so that a name in a comment
// or a string is not a violation, and a multi-line import is.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The viem actions that belong under src/chain/: contract reads and writes, event reads, transactions.
 * Reads of the node's own state (getBlock, getBlockNumber, getChainId, getBalance) and signature
 * checks (verifyMessage) are not contract actions and may be called where they are needed.
 */
export const CHAIN_ACTIONS = new Set([
  "readContract",
  "multicall",
  "simulateContract",
  "estimateContractGas",
  "writeContract",
  "deployContract",
  "getContractEvents",
  "getLogs",
  "watchContractEvent",
  "createContractEventFilter",
  "getFilterLogs",
  "sendTransaction",
  "sendRawTransaction",
  "waitForTransactionReceipt",
]);

/** The tables adapter's calls on items (src/adapters/tables/dynamo.ts): only stores use them. Its other
 * exports (the `Tables` type, creating the client and the tables, the health probe) may be used anywhere. */
export const STORE_CALLS = new Set(["isConditionalCheckFailure", "batchGet", "batchWrite", "countPartition", "clearTable"]);
const TABLES_ADAPTER = /(^|\/)adapters\/tables\/dynamo(\.ts)?$/;

/** Files that still touch storage outside an adapter or a store: the to-do of the storage split. */
const STORAGE_ALLOWED: Record<string, string> = {};

/** Files that still call a contract action outside src/chain/: the to-do of the chain split. */
const CHAIN_ALLOWED: Record<string, string> = {};

/** The workspace's packages by folder (the service is every other folder), with the npm name each is imported by. */
export const PACKAGES = [
  { dir: "packages/core", name: "@agent-rental/core" },
  { dir: "sdk", name: "@agent-rental/sdk" },
  { dir: "cli", name: "@agent-rental/cli" },
  { dir: "web", name: "@agent-rental/web" },
] as const;
const SERVICE = "the service";

/** Which workspace packages each package may import: only the ones below it. */
export const LAYERS: Record<string, readonly string[]> = {
  "packages/core": [],
  sdk: ["@agent-rental/core"],
  cli: ["@agent-rental/core", "@agent-rental/sdk"],
  web: ["@agent-rental/core", "@agent-rental/sdk"],
  [SERVICE]: ["@agent-rental/core"],
};

/** The folder of the package a repository path belongs to (the service's for any other path). */
export function packageOf(path: string): string {
  return PACKAGES.find((pkg) => path === pkg.dir || path.startsWith(`${pkg.dir}/`))?.dir ?? SERVICE;
}

const NODE_BUILTINS = new Set(builtinModules);
const isNodeBuiltin = (specifier: string) => specifier.startsWith("node:") || NODE_BUILTINS.has(specifier.split("/")[0] ?? "");
/** `@agent-rental/sdk/mcp` → `@agent-rental/sdk`. */
const workspaceName = (specifier: string) => PACKAGES.find((pkg) => specifier === pkg.name || specifier.startsWith(`${pkg.name}/`))?.name;

export interface Violation {
  rule: "storage" | "chain" | "package" | "core" | "wiring";
  file: string;
  line: number;
  what: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ["generated", "node_modules", "dist"].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const storageAllowed = (file: string) => !file.startsWith("src/") || file.startsWith("src/adapters/") || file.endsWith(".store.ts");
const chainAllowed = (file: string) => !file.startsWith("src/") || file.startsWith("src/chain/");
/** The files of src/ that hold the whole bag of services: the API (its routes and middleware), the jobs, the boot. */
export const WIRING = /^src\/(api\/|jobs\.ts$|boot\.ts$|services\.ts$)/;
const wiringAllowed = (file: string) => !file.startsWith("src/") || WIRING.test(file) || /\.test\.ts$/.test(file);
const isTest = (file: string) => file.startsWith("test/") || /\.test\.tsx?$/.test(file);

/** The package rules for one module specifier of `file`: a relative path out of its package, a
 * workspace package above it, a Node built-in in the core. */
function packageViolation(file: string, specifier: string): Pick<Violation, "rule" | "what"> | undefined {
  const from = packageOf(file);
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    if (file.startsWith("test/")) return undefined;
    const target = posix.normalize(posix.join(posix.dirname(file), specifier));
    const to = packageOf(target);
    if (to === from) return undefined;
    const name = PACKAGES.find((pkg) => pkg.dir === to)?.name;
    const remedy = name === undefined ? "" : (LAYERS[from] ?? []).includes(name) ? `: import ${name} by name` : `, which is not below it`;
    return { rule: "package", what: `imports ${target} from another package (${name ?? SERVICE})${remedy}` };
  }
  const name = workspaceName(specifier);
  const own = PACKAGES.find((pkg) => pkg.dir === from)?.name;
  if (name !== undefined && name !== own && !file.startsWith("test/") && !(LAYERS[from] ?? []).includes(name)) {
    return { rule: "package", what: `imports ${name}, which is not below it (${from === SERVICE ? SERVICE : from} may import ${(LAYERS[from] ?? []).join(", ") || "no workspace package"})` };
  }
  if (from === "packages/core" && !isTest(file) && isNodeBuiltin(specifier)) return { rule: "core", what: `imports ${specifier}` };
  return undefined;
}

/** The violations in one file's text (`file` is its path from the repository root). */
export function violationsOf(file: string, text: string): Violation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Violation[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const moduleOf = (node: ts.Node): ts.Expression | undefined => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return node.moduleSpecifier;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return node.arguments[0];
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return node.argument.literal;
    return undefined;
  };
  const visit = (node: ts.Node) => {
    const specifier = moduleOf(node);
    const crossing = specifier && ts.isStringLiteral(specifier) ? packageViolation(file, specifier.text) : undefined;
    if (crossing) found.push({ ...crossing, file, line: at(node) });
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith(".") && !wiringAllowed(file)) {
      const target = posix.normalize(posix.join(posix.dirname(file), specifier.text));
      if (target === "src/services.ts" || target === "src/services") found.push({ rule: "wiring", file, line: at(node), what: "imports the whole bag of services (src/services.ts)" });
    }
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith("@aws-sdk/") && !storageAllowed(file)) {
      found.push({ rule: "storage", file, line: at(node), what: `imports ${specifier.text}` });
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && TABLES_ADAPTER.test(node.moduleSpecifier.text) && !storageAllowed(file)) {
      const bindings = node.importClause?.namedBindings;
      const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((element) => (element.propertyName ?? element.name).text) : [];
      for (const name of names.filter((n) => STORE_CALLS.has(n))) found.push({ rule: "storage", file, line: at(node), what: `imports ${name} from the tables adapter` });
    }
    // `tables.doc`, `services.tables.doc`: the document client, which only stores send commands with.
    if (ts.isPropertyAccessExpression(node) && node.name.text === "doc" && !storageAllowed(file)) {
      const target = node.expression;
      const named = ts.isIdentifier(target) ? target.text : ts.isPropertyAccessExpression(target) ? target.name.text : undefined;
      if (named === "tables") found.push({ rule: "storage", file, line: at(node), what: "uses the tables' document client" });
    }
    if (ts.isCallExpression(node) && !chainAllowed(file)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
      if (name && CHAIN_ACTIONS.has(name)) found.push({ rule: "chain", file, line: at(node), what: `calls ${name}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every folder of TypeScript the rules read: each package's sources and the service's folders. */
export const SCANNED = ["src", "functions", "local", "scripts", "bench", "stacks", "test", "packages/core/src", "sdk/src", "cli/src", "web/src"];

function main(): number {
  const files = SCANNED.flatMap(sourceFiles).map((path) => relative(root, join(root, path)));
  const violations = files.flatMap((file) => violationsOf(file, readFileSync(join(root, file), "utf8")));
  const allowed: Record<Violation["rule"], Record<string, string>> = { storage: STORAGE_ALLOWED, chain: CHAIN_ALLOWED, package: {}, core: {}, wiring: {} };
  const fresh = violations.filter((v) => !(v.file in allowed[v.rule]));
  const stale = (["storage", "chain"] as const).flatMap((rule) =>
    Object.keys(allowed[rule])
      .filter((file) => !violations.some((v) => v.rule === rule && v.file === file))
      .map((file) => `${rule}: ${file} no longer breaks the rule: remove it from the list in scripts/check-imports.ts`),
  );
  const rules = {
    storage: "the AWS SDK, the tables' item calls and their document client are used only under src/adapters/ and by *.store.ts files",
    chain: "contract actions are called only under src/chain/",
    package: "a package imports another only by name, and only one below it",
    core: "the shared core imports no Node built-in: it runs in browsers",
    wiring: "only the API, the jobs and the boot hold the whole bag of services; an area takes its own narrow type (src/<area>/services.ts)",
  };
  for (const v of fresh) process.stdout.write(`${v.file}:${v.line}: ${v.what} (${rules[v.rule]})\n`);
  for (const line of stale) process.stdout.write(`${line}\n`);
  const left = Object.keys(STORAGE_ALLOWED).length + Object.keys(CHAIN_ALLOWED).length;
  process.stdout.write(
    fresh.length || stale.length
      ? `import boundaries: ${fresh.length} new violation(s), ${stale.length} stale allow-list entr${stale.length === 1 ? "y" : "ies"}\n`
      : `import boundaries hold (${files.length} files${left ? `; ${left} allow-listed, still to move` : ""})\n`,
  );
  return fresh.length || stale.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(main());
