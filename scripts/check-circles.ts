// No import circles in the service's code (src/), run by `npm test`: the modules of src/ and the
// relative imports between them (type-only imports and `import()` included: a circle of types is still
// two modules that cannot be read, moved or tested apart) form a graph that must have no cycle. Each
// circle found is printed as the path that closes it, file by file.
//
// The graph is read with the TypeScript parser, as check-imports.ts reads imports, and its strongly
// connected components found with Tarjan's algorithm (a few lines): a dependency-graph package (madge,
// dependency-cruiser) would resolve the same imports again through resolvers of its own, which read
// this repository's `.ts` import specifiers and export conditions less exactly than the parser does.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The files of src/ that `file`'s text imports (relative specifiers only; `file` is a repository path). */
export function importsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = new Set<string>();
  const visit = (node: ts.Node) => {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) specifier = node.moduleSpecifier;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) specifier = node.arguments[0];
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifier = node.argument.literal;
    if (specifier && ts.isStringLiteral(specifier) && /^\.\.?\//.test(specifier.text)) found.add(posix.normalize(posix.join(posix.dirname(file), specifier.text)));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found];
}

/**
 * The circles of a module graph: each strongly connected component of more than one module (or a
 * module importing itself), as one cycle through it, starting at its first module in name order.
 */
export function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strongConnect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        strongConnect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) strongConnect(node);
  return components.map((component) => cycleThrough(graph, new Set(component))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A shortest cycle from the component's first module back to it, within the component (breadth first). */
function cycleThrough(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The module graph of src/ (tests beside the code included: a test is a module too). */
export function sourceGraph(): Map<string, string[]> {
  return new Map(sourceFiles("src").map((file) => [file, importsOf(file, readFileSync(join(root, file), "utf8"))]));
}

function main(): number {
  const graph = sourceGraph();
  const circles = circlesOf(graph);
  for (const circle of circles) process.stdout.write(`import circle: ${circle.join(" → ")}\n`);
  process.stdout.write(circles.length ? `import circles: ${circles.length} in src/ (break each: move what both sides need into the module below them)\n` : `no import circles (${graph.size} modules of src/)\n`);
  return circles.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(main());
