// The wallet that signs: a private key from AGENTRENT_PRIVATE_KEY, or an encrypted v3 keystore
// (--keystore, AGENTRENT_KEYSTORE, the config's keystore, or <config dir>/keystore.json) whose password
// comes from AGENTRENT_KEYSTORE_PASSWORD or a hidden prompt. Never a flag: flags land in shell history.
import { existsSync, readFileSync } from "node:fs";
import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { CliError, EXIT } from "./errors.ts";
import type { Prompter } from "./prompt.ts";
import type { Env, Settings } from "./settings.ts";

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

export function parsePrivateKey(value: string, source: string): Hex {
  const trimmed = value.trim();
  if (!PRIVATE_KEY.test(trimmed)) throw new CliError(`${source} is not a private key (32 bytes of hex, with or without 0x).`, EXIT.auth, "invalid_private_key");
  return (trimmed.startsWith("0x") ? trimmed : `0x${trimmed}`) as Hex;
}

export async function keystorePassword(env: Env, purpose: string, prompt: Prompter): Promise<string> {
  if (env.AGENTRENT_KEYSTORE_PASSWORD !== undefined) return env.AGENTRENT_KEYSTORE_PASSWORD;
  const needed = `The keystore password is needed to ${purpose}: set AGENTRENT_KEYSTORE_PASSWORD, or run on a terminal to be asked.`;
  if (!prompt.interactive) throw new CliError(needed, EXIT.auth, "password_required");
  const password = await prompt.secret("Keystore password");
  if (password === undefined) throw new CliError(needed, EXIT.auth, "password_required");
  return password;
}

/** The signing account; throws an auth error that says how to configure one. */
export async function loadAccount(settings: Settings, env: Env, prompt: Prompter): Promise<PrivateKeyAccount> {
  // Loaded here, not at start: only commands that sign need viem's accounts and the keystore's crypto.
  const [{ privateKeyToAccount }, { decryptKeystore, KeystoreError }] = await Promise.all([import("viem/accounts"), import("./keystore.ts")]);
  if (env.AGENTRENT_PRIVATE_KEY) return privateKeyToAccount(parsePrivateKey(env.AGENTRENT_PRIVATE_KEY, "AGENTRENT_PRIVATE_KEY"));
  const file = settings.keystore;
  if (!file) {
    throw new CliError("No wallet: set AGENTRENT_PRIVATE_KEY, or create an encrypted keystore with `agentrent wallet new` (or `agentrent wallet import`).", EXIT.auth, "no_wallet");
  }
  if (!existsSync(file)) throw new CliError(`The keystore ${file} does not exist: create it with \`agentrent wallet new\`.`, EXIT.auth, "no_wallet");
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new CliError(`The keystore ${file} is not JSON.`, EXIT.auth, "invalid_keystore");
  }
  const password = await keystorePassword(env, "unlock the wallet", prompt);
  try {
    return privateKeyToAccount(decryptKeystore(json, password));
  } catch (error) {
    if (error instanceof KeystoreError) {
      throw new CliError(
        error.reason === "wrong_password" ? `Wrong password for the keystore ${file}.` : `${file}: ${error.message}`,
        EXIT.auth,
        error.reason,
      );
    }
    throw error;
  }
}
