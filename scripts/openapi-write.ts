// Writes the API's OpenAPI document, rendered in-process from the routes, to .build/openapi.json (or
// the path given), for the linter (redocly lint) and the SDK's type generation.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../src/api/openapi-document.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, process.argv[2] ?? ".build/openapi.json");
const document = await openApiDocument();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
const operations = Object.values(document.paths as Record<string, Record<string, unknown>>).reduce((n, item) => n + Object.keys(item).length, 0);
process.stdout.write(`wrote ${out} (${operations} operations)\n`);
