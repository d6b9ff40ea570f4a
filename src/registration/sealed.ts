// Sealing creator-private data (a manifest with its prompt, a provider key) under a data key:
// AES-256-GCM, the purpose bound as additional data.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export function seal(key: Uint8Array, plaintext: Uint8Array, purpose: string): Uint8Array {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
}

export function open(key: Uint8Array, sealed: Uint8Array, purpose: string): Uint8Array {
  const raw = Buffer.from(sealed);
  if (raw[0] !== 1) throw new Error("unknown sealed format");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(1, 13));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(raw.subarray(13, 29));
  return Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]);
}
