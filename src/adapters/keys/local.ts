// The local master key: AES-256-GCM key wrapping with the key from the local key file. The context
// (for example the listing id) is bound as additional data, so a wrapped key moved to another listing
// does not unwrap.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { KeyWrapper } from "./port.ts";

const aad = (context: Record<string, string>) => Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

export function createLocalKeyWrapper(masterKeyBase64: string): KeyWrapper {
  const master = Buffer.from(masterKeyBase64, "base64");
  if (master.length !== 32) throw new Error("the local master key must be 32 bytes (base64)");
  return {
    async generateDataKey(context) {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", master, iv);
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { plaintext, wrapped: `local:v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}` };
    },
    async unwrap(wrapped, context) {
      if (!wrapped.startsWith("local:v1:")) throw new Error("not a locally wrapped key");
      const raw = Buffer.from(wrapped.slice("local:v1:".length), "base64");
      const decipher = createDecipheriv("aes-256-gcm", master, raw.subarray(0, 12));
      decipher.setAAD(aad(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
    },
  };
}
