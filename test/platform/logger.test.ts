import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";

describe("logger", () => {
  it("never writes the values of secret-named fields, at any depth", () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line));
    logger.info("calling provider", {
      authorization: "Bearer svc_test_secretsecretsecretsecret",
      nested: { provider_key: "sk-live-123", privateKey: "0xabc", list: [{ api_key: "k" }] },
      listing: "lst_1",
    });
    const text = lines.join("\n");
    for (const secret of ["svc_test_secret", "sk-live-123", "0xabc", '"k"']) expect(text).not.toContain(secret);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", message: "calling provider", listing: "lst_1" });
  });

  it("respects the level", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", (line) => lines.push(line));
    logger.info("hidden");
    logger.error("shown");
    expect(lines.map((l) => JSON.parse(l).message)).toEqual(["shown"]);
  });
});
