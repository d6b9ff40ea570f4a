// Web3 Secret Storage v3 keystores (the JSON keystore format of geth and most wallets): scrypt (or
// pbkdf2 on import) derives a key from the password, aes-128-ctr encrypts the private key, and a
// keccak256 MAC over the second half of the derived key and the ciphertext detects a wrong password.
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes, randomUUID, scryptSync, timingSafeEqual } from "node:crypto";
import { scrypt as pureScrypt } from "@noble/hashes/scrypt";
import { bytesToHex, hexToBytes, keccak256, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export interface ScryptParams {
  dklen: number;
  salt: string;
  n: number;
  r: number;
  p: number;
}

export interface Pbkdf2Params {
  dklen: number;
  salt: string;
  c: number;
  prf: "hmac-sha256";
}

export interface KeystoreV3 {
  version: 3;
  id: string;
  /** Lowercase hex, without 0x. */
  address: string;
  crypto: {
    cipher: "aes-128-ctr";
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: "scrypt" | "pbkdf2";
    kdfparams: ScryptParams | Pbkdf2Params;
    mac: string;
  };
}

export class KeystoreError extends Error {
  override name = "KeystoreError";
  constructor(
    message: string,
    readonly reason: "wrong_password" | "invalid_keystore",
  ) {
    super(message);
  }
}

/** The standard scrypt cost (geth's default): n = 2^18, r = 8, p = 1. */
export const DEFAULT_SCRYPT = { n: 262144, r: 8, p: 1 } as const;

function deriveKey(password: string, kdf: "scrypt" | "pbkdf2", params: ScryptParams | Pbkdf2Params): Buffer {
  const salt = Buffer.from(params.salt, "hex");
  if (kdf === "scrypt") {
    const { n, r, p, dklen } = params as ScryptParams;
    // OpenSSL refuses N >= 2^(16 r) (RFC 7914's bound), which some keystores exceed (the format's own
    // test vector has r = 1, N = 2^18): those go through a pure implementation.
    if (Math.log2(n) >= 16 * r) return Buffer.from(pureScrypt(Buffer.from(password.normalize("NFKC"), "utf8"), salt, { N: n, r, p, dkLen: dklen, maxmem: 2 ** 31 }));
    return scryptSync(Buffer.from(password.normalize("NFKC"), "utf8"), salt, dklen, { N: n, r, p, maxmem: 128 * n * r * p + 64 * 1024 * 1024 });
  }
  const { c, dklen, prf } = params as Pbkdf2Params;
  if (prf !== "hmac-sha256") throw new KeystoreError(`Unsupported pbkdf2 prf ${String(prf)}.`, "invalid_keystore");
  return pbkdf2Sync(Buffer.from(password.normalize("NFKC"), "utf8"), salt, c, dklen, "sha256");
}

function mac(derived: Buffer, ciphertext: Buffer): string {
  return keccak256(new Uint8Array(Buffer.concat([derived.subarray(16, 32), ciphertext]))).slice(2);
}

/** Encrypts a private key under a password. `scrypt` lowers the cost for tests only. */
export function encryptKeystore(privateKey: Hex, password: string, scrypt: { n: number; r: number; p: number } = DEFAULT_SCRYPT): KeystoreV3 {
  const key = Buffer.from(hexToBytes(privateKey));
  if (key.length !== 32) throw new KeystoreError("A private key is 32 bytes.", "invalid_keystore");
  const kdfparams: ScryptParams = { dklen: 32, salt: randomBytes(32).toString("hex"), n: scrypt.n, r: scrypt.r, p: scrypt.p };
  const derived = deriveKey(password, "scrypt", kdfparams);
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-128-ctr", derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(key), cipher.final()]);
  return {
    version: 3,
    id: randomUUID(),
    address: privateKeyToAccount(privateKey).address.slice(2).toLowerCase(),
    crypto: { cipher: "aes-128-ctr", cipherparams: { iv: iv.toString("hex") }, ciphertext: ciphertext.toString("hex"), kdf: "scrypt", kdfparams, mac: mac(derived, ciphertext) },
  };
}

const HEX = /^[0-9a-fA-F]+$/;

/** Checks the shape of a v3 keystore (without the password). */
export function parseKeystore(value: unknown): KeystoreV3 {
  const bad = (why: string) => new KeystoreError(`Not a v3 JSON keystore: ${why}.`, "invalid_keystore");
  if (typeof value !== "object" || value === null) throw bad("not a JSON object");
  const ks = value as Partial<KeystoreV3> & { Crypto?: KeystoreV3["crypto"] };
  if (ks.version !== 3) throw bad("version is not 3");
  const crypto = ks.crypto ?? ks.Crypto;
  if (!crypto || typeof crypto !== "object") throw bad("no crypto section");
  if (crypto.cipher !== "aes-128-ctr") throw bad(`cipher ${String(crypto.cipher)} is not aes-128-ctr`);
  if (!crypto.cipherparams || typeof crypto.cipherparams.iv !== "string" || !HEX.test(crypto.cipherparams.iv)) throw bad("no cipherparams.iv");
  if (typeof crypto.ciphertext !== "string" || !HEX.test(crypto.ciphertext)) throw bad("no ciphertext");
  if (typeof crypto.mac !== "string" || !HEX.test(crypto.mac)) throw bad("no mac");
  if (crypto.kdf !== "scrypt" && crypto.kdf !== "pbkdf2") throw bad(`kdf ${String(crypto.kdf)} is neither scrypt nor pbkdf2`);
  const params = crypto.kdfparams as unknown as Record<string, unknown> | undefined;
  if (!params || typeof params.salt !== "string" || typeof params.dklen !== "number" || params.dklen < 32) throw bad("kdfparams incomplete");
  if (crypto.kdf === "scrypt" && ![params.n, params.r, params.p].every((v) => typeof v === "number" && Number.isSafeInteger(v) && v > 0)) throw bad("scrypt n, r, p missing");
  if (crypto.kdf === "pbkdf2" && !(typeof params.c === "number" && params.c > 0)) throw bad("pbkdf2 c missing");
  return { ...(ks as KeystoreV3), crypto };
}

/** Decrypts a keystore; a wrong password is a KeystoreError with reason wrong_password. */
export function decryptKeystore(value: unknown, password: string): Hex {
  const ks = parseKeystore(value);
  const derived = deriveKey(password, ks.crypto.kdf, ks.crypto.kdfparams);
  const ciphertext = Buffer.from(ks.crypto.ciphertext, "hex");
  const expected = Buffer.from(mac(derived, ciphertext), "hex");
  const given = Buffer.from(ks.crypto.mac, "hex");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new KeystoreError("Wrong keystore password (the MAC does not match).", "wrong_password");
  const decipher = createDecipheriv("aes-128-ctr", derived.subarray(0, 16), Buffer.from(ks.crypto.cipherparams.iv, "hex"));
  const key = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  const privateKey = bytesToHex(new Uint8Array(key));
  if (ks.address && privateKeyToAccount(privateKey).address.slice(2).toLowerCase() !== ks.address.toLowerCase().replace(/^0x/, "")) {
    throw new KeystoreError("The keystore's key does not match its address.", "invalid_keystore");
  }
  return privateKey;
}
