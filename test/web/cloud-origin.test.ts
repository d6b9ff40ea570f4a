// The dashboard's origin in the cloud: the stacks give the API's functions the static site's URL
// (DASHBOARD_URL) on the first deploy, and the API allows that origin whatever else CORS_ORIGINS lists,
// so letting a partner's app in never locks the dashboard out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/api/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createServices } from "../../src/services.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

const DASHBOARD = "https://d1a2b3c4d5e6f7.cloudfront.net";
const PARTNER = "https://partner.example.org";

let local: TestContext;
let localWorld: World | undefined;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  localWorld = await startWorld({ serve: false });
  local = localWorld.ctx;
  // As stacks/api.ts configures the API's functions: the site's URL, and an operator's extra origin.
  const config = loadConfig({ ...local.env, DASHBOARD_URL: `${DASHBOARD}/`, CORS_ORIGINS: PARTNER });
  app = buildApp(createServices(config, { logger: local.services.logger, tables: local.services.tables }));
});
afterAll(() => localWorld?.close());

const preflight = (origin: string) =>
  new Request("http://api.test/v1/listings", { method: "OPTIONS", headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" } });

describe("the dashboard's origin in the cloud", () => {
  it("is allowed beside the origins CORS_ORIGINS lists, and no other origin is", async () => {
    for (const origin of [DASHBOARD, PARTNER]) {
      const res = await app.request(preflight(origin));
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }
    const refused = await app.request(preflight("https://elsewhere.example"));
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("is the only origin allowed in the cloud by default, and is kept when CORS_ORIGINS lists others or any", () => {
    const cloud = {
      ...local.env,
      STAGE: "cloud",
      UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io",
      UPSTASH_REDIS_REST_TOKEN: "token",
      RUNNER_FUNCTION_NAME: "runner",
      ALLOW_PRIVATE_AGENT_HOSTS: "false",
      DASHBOARD_URL: `${DASHBOARD}/`,
    };
    expect(loadConfig(cloud).corsOrigins).toEqual([DASHBOARD]);
    expect(loadConfig({ ...cloud, CORS_ORIGINS: PARTNER }).corsOrigins).toEqual([PARTNER, DASHBOARD]);
    expect(loadConfig({ ...cloud, CORS_ORIGINS: `${DASHBOARD},${PARTNER}` }).corsOrigins).toEqual([DASHBOARD, PARTNER]);
    expect(loadConfig({ ...cloud, CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*", DASHBOARD]);
  });
});
