// The route files say everything about themselves and are found by their names: one operation per file,
// named by its method and path (src/api/routes/<path, "/" as "_">.<method>.ts), each declaring its
// access, rate limit and errors, and every one mounted by the app in the group its access names. A
// route's tests are found by its method and path too: test names carry "<METHOD> <path>".
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/api/env.ts";
import { registerRoutes } from "../../src/api/app.ts";
import { ERROR_STATUS } from "../../src/errors.ts";
import { declarationOf, defineRoute, type RouteDeclaration } from "../../src/api/route.ts";
import { routeGroup } from "../../src/api/route-groups.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const ROUTES = join(root, "src/api/routes");

/** The file a route lives in: its path without the leading slash, "/" written "_", then its method. */
function routeFileName(method: string, path: string): string {
  return `${path.slice(1).replaceAll("/", "_")}.${method.toLowerCase()}.ts`;
}

interface RouteFile {
  file: string;
  declared: RouteDeclaration | undefined;
  register: unknown;
}

let files: RouteFile[];

beforeAll(async () => {
  files = await Promise.all(
    readdirSync(ROUTES)
      .filter((file) => file.endsWith(".ts"))
      .sort()
      .map(async (file) => {
        const module = (await import(join(ROUTES, file))) as { route?: object; register?: unknown };
        return { file, declared: module.route ? declarationOf(module.route) : undefined, register: module.register };
      }),
  );
});

const declarations = () => files.map((f) => f.declared!).filter(Boolean);

describe("route files", () => {
  it("each hold one route declared with defineRoute, exported as `route`, and a `register` function", () => {
    expect(files.length).toBeGreaterThanOrEqual(35);
    expect(files.filter((f) => !f.declared || typeof f.register !== "function").map((f) => f.file)).toEqual([]);
  });

  it("are named by the method and path their route declares", () => {
    const misnamed = files.filter((f) => f.declared && f.file !== routeFileName(f.declared.method, f.declared.path));
    expect(misnamed.map((f) => `${f.file} holds ${f.declared!.method} ${f.declared!.path}: name it ${routeFileName(f.declared!.method, f.declared!.path)}`)).toEqual([]);
  });

  it("map one to one to a method and path: no literal path segment holds the separator", () => {
    for (const { method, path } of declarations()) {
      const literals = path.split("/").filter((segment) => !segment.startsWith("{"));
      expect(literals.filter((segment) => segment.includes("_")), `${method} ${path}`).toEqual([]);
    }
    const names = files.map((f) => f.file);
    expect(new Set(names).size).toBe(names.length);
  });

  it("each declare access, a rate rule and fail mode, and errors that exist with the status they are declared under", () => {
    const wrong: string[] = [];
    for (const { method, path, access, rateLimit, errors } of declarations()) {
      const name = `${method} ${path}`;
      if (access !== "public" && access !== "bearer") wrong.push(`${name}: access ${String(access)}`);
      if (rateLimit?.rule !== "default" && rateLimit?.rule !== "execution" && rateLimit?.rule !== "oauth") wrong.push(`${name}: rate rule ${String(rateLimit?.rule)}`);
      if (rateLimit?.failMode !== "open" && rateLimit?.failMode !== "closed") wrong.push(`${name}: fail mode ${String(rateLimit?.failMode)}`);
      if (typeof errors !== "object" || errors === null) wrong.push(`${name}: no errors`);
      for (const [status, codes] of Object.entries(errors ?? {})) {
        for (const code of codes as string[]) if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== Number(status)) wrong.push(`${name}: ${code} under ${status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the app's routes", () => {
  let app: OpenAPIHono<AppEnv>;
  beforeAll(() => {
    app = new OpenAPIHono<AppEnv>();
    registerRoutes(app);
  });

  it("are exactly the route files' routes: each file mounted once, nothing mounted without a declaration", () => {
    const served = new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`));
    const declared = declarations().map((d) => `${d.method} ${d.path}`);
    expect([...served].sort()).toEqual([...declared].sort());
    expect(new Set(declared).size).toBe(declared.length);
  });

  it("serve without a token exactly sign-in, health, the document and its reference, listings' public metadata, the currencies listings are priced in, A2A's Agent Cards and their signing keys, the MCP endpoint paid per call by x402, and OAuth's metadata and protocol endpoints", () => {
    const open = declarations().filter((d) => d.access === "public").map((d) => `${d.method} ${d.path}`);
    expect(open.sort()).toEqual(
      [
        "GET /v1/auth/challenge",
        "POST /v1/auth/token",
        "GET /v1/health",
        "GET /v1/openapi.json",
        "GET /v1/docs",
        "GET /v1/docs/scalar.js",
        "GET /v1/metadata/{cid}",
        "GET /v1/currencies",
        "GET /a2a/{agent_id}/.well-known/agent-card.json",
        "GET /.well-known/jwks.json",
        "GET /.well-known/oauth-protected-resource",
        "GET /.well-known/oauth-protected-resource/v1/mcp",
        "POST /v1/mcp/x402",
        "GET /v1/mcp/x402",
        "GET /.well-known/oauth-protected-resource/a2a/{agent_id}",
        "GET /.well-known/oauth-authorization-server",
        "GET /oauth/authorize",
        "GET /oauth/authorize/{request_id}",
        "POST /oauth/token",
        "POST /oauth/register",
        "POST /oauth/revoke",
      ].sort(),
    );
  });
});

describe("route groups", () => {
  const declare = (access: "public" | "bearer") =>
    defineRoute({
      method: "get",
      path: "/v1/probe",
      operationId: "probe",
      tag: "System",
      access,
      rateLimit: { rule: "default", failMode: "open" },
      responses: { 200: { description: "probe", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } } },
      errors: {},
    });

  it("refuse a route whose declared access is not the group's, at registration", () => {
    expect(() => routeGroup("public").openapi(declare("bearer"), (c) => c.json({ ok: true }, 200))).toThrow(/declares access "bearer" but is registered with the public routes/);
    expect(() => routeGroup("bearer").openapi(declare("public"), (c) => c.json({ ok: true }, 200))).toThrow(/declares access "public" but is registered with the authenticated routes/);
  });

  it("refuse a route not declared with defineRoute", () => {
    const plain = { ...declare("public") };
    expect(() => routeGroup("public").openapi(plain, (c) => c.json({ ok: true }, 200))).toThrow(/not declared with defineRoute/);
  });
});

describe("each route's tests", () => {
  it("are found by its method and path: some test file names \"<METHOD> <path>\" in a describe or a test", () => {
    const tests: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".test.ts")) tests.push(path);
      }
    };
    walk(join(root, "test"));
    const titles = tests.flatMap((file) => [...readFileSync(file, "utf8").matchAll(/\b(?:describe|it)\(\s*(["'`])(.*?)\1/g)].map((m) => ({ file: relative(root, file), title: m[2]! })));
    // The name stands alone in the title: "GET /v1/keys" is not named by a title about "GET /v1/keys/{key_id}".
    const names = (title: string, name: string) => new RegExp(`(^|[\\s(])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s:,)])`).test(title);
    const untested = declarations()
      .map((d) => `${d.method} ${d.path}`)
      .filter((name) => !titles.some(({ title, file }) => file !== "test/api/routes.test.ts" && names(title, name)));
    expect(untested).toEqual([]);
  });
});
