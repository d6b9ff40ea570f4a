import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

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

  it("never writes text shaped like a secret of the service's, in the message or any field", () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line));
    const apiKey = "svc_live_Zx81kQ_3mPqv0LrT9sWn";
    const webhook = "whsec_MfKQ9r8GI0Zr4q7U1pJvN2lB";
    const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIweDEifQ.c2ln";
    logger.error(`delivery refused for ${apiKey}`, {
      cause: `signature with ${webhook} did not verify`,
      nested: { detail: [`header was Bearer ${jwt}`, "authorization: bearer sk-proj-abcdefghijklmnop", "url ?auth=Bearer%20sk-abc;defghijklm,nopq", `prefix_${apiKey}`] },
      error: new Error(`token ${apiKey} revoked`),
      tx: "0x5f2b1c0e9a8d7f6e5d4c3b2a19081726354453627180f9e8d7c6b5a493827160",
      run_id: "run_0123456789abcdef0123456789abcdef",
    });
    const text = lines.join("\n");
    for (const secret of [apiKey, webhook, jwt, "sk-proj-abcdefghijklmnop", "Zx81kQ", "MfKQ9r8G", "defghijklm", "nopq"]) expect(text).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.message).toBe("delivery refused for [redacted]");
    expect(line.cause).toBe("signature with [redacted] did not verify");
    // identifiers that are not secrets stay readable
    expect(line.tx).toBe("0x5f2b1c0e9a8d7f6e5d4c3b2a19081726354453627180f9e8d7c6b5a493827160");
    expect(line.run_id).toBe("run_0123456789abcdef0123456789abcdef");
    expect(JSON.stringify(line.nested)).toContain("Bearer [redacted]");
  });

  it("respects the level", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", (line) => lines.push(line));
    logger.info("hidden");
    logger.error("shown");
    expect(lines.map((l) => JSON.parse(l).message)).toEqual(["shown"]);
  });
});
