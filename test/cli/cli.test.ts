// The CLI without a service: argument parsing, the v3 keystore (round trip, wrong password, the
// format's published test vectors), settings resolution, and bad input giving the documented exit
// code and a message that says what to do, both in-process and through the binary.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { GLOBAL_OPTIONS, parseCommandLine, runCli } from "../../cli/src/cli.ts";
import { COMMANDS } from "../../cli/src/commands.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { decryptKeystore, encryptKeystore, KeystoreError } from "../../cli/src/keystore.ts";
import { toJson } from "../../cli/src/output.ts";
import { resolveSettings, saveSession, loadSession } from "../../cli/src/settings.ts";
import { ethAmount, formatEth } from "../../cli/src/units.ts";
import { formatEther } from "viem";
import { authenticatedApi } from "../../cli/src/api.ts";
import { buildCliBin } from "../support/cli.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** A command line's words as a POSIX shell splits them (quotes), a `<placeholder>` kept as one word. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:<[^>]*>|[^\s"'])+))/gy;
  for (let match = pattern.exec(line); match && match[0].trim() !== ""; match = pattern.exec(line)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const FAST = { n: 1024, r: 8, p: 1 };

function capture() {
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        append(chunk.toString());
        done();
      },
    });
  return {
    streams: { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)) },
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

/** Runs the CLI in-process with an isolated config dir and no stack file. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const dir = env.AGENTRENT_CONFIG_DIR ?? mkdtempSync(join(tmpdir(), "agentrent-unit-"));
  const io = capture();
  // In its own folder: a local stack's .local/stack.json above the working directory (one `npm start`
  // left in this checkout) must not configure it.
  const code = await runCli(args, COMMANDS, { HOME: dir, AGENTRENT_CONFIG_DIR: dir, AGENTRENT_STACK_FILE: "", LOCAL_DATA_DIR: "", ...env }, io.streams, { cwd: dir });
  return { code, stdout: io.stdout, stderr: io.stderr, dir };
}

describe("the CLI's units", () => {
  it("ETH amounts format as viem does", () => {
    for (const wei of [0n, 1n, 10n ** 18n, 1_500_000_000_000_000n, 123_456_789_012_345_678_901n, -5n]) expect(formatEth(wei)).toBe(formatEther(wei));
  });
});

describe("version, help and completion", () => {
  it("--version prints the package's version; help <command> is <command> --help", async () => {
    const version = await cli(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: `agentrent ${JSON.parse(readFileSync(join(root, "cli/package.json"), "utf8")).version}\n` });
    const help = await cli(["help", "execute"]);
    const flag = await cli(["execute", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(flag.stdout);
    expect(help.stdout).toContain("agentrent execute <agent_id>");
  });

  it("every command has a description and examples that parse as that command, every argument and flag a description, in help <command> and <command> --help alike", async () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(41);
    for (const [name, flag] of Object.entries(GLOBAL_OPTIONS)) expect(flag.description.trim(), `--${name}`).not.toBe("");
    for (const command of COMMANDS) {
      const where = `agentrent ${command.path}`;
      expect(command.summary.trim(), where).not.toBe("");
      expect(command.examples.length, `${where}: examples`).toBeGreaterThan(0);
      const [min, max] = command.args ?? [0, 0];
      if (max > 0) expect(command.arguments?.length, `${where}: its arguments are described`).toBeGreaterThan(0);
      for (const [name, flag] of Object.entries(command.options ?? {})) expect(flag.description.trim(), `${where} --${name}`).not.toBe("");
      for (const example of command.examples) {
        // What runs agentrent: after a pipe, environment assignments or `<(`, before a redirection.
        const segment = example.split(" | ").find((part) => /(^|[\s(])agentrent\s/.test(part))!;
        const words = shellWords(segment.slice(segment.indexOf("agentrent ")).replace(/\)$/, "").replace(/\s+>>?\s+\S+$/, ""));
        expect(words[0], example).toBe("agentrent");
        const parsed = parseCommandLine(words.slice(1), COMMANDS);
        expect(parsed.command?.path, example).toBe(command.path);
        expect(parsed.positionals.length, example).toBeGreaterThanOrEqual(min);
        expect(parsed.positionals.length, example).toBeLessThanOrEqual(max);
      }
      const help = await cli(["help", ...command.path.split(" ")]);
      const flag = await cli([...command.path.split(" "), "--help"]);
      expect(help.code, where).toBe(0);
      expect(flag).toMatchObject({ code: 0, stdout: help.stdout });
      expect(help.stdout.startsWith(`${where} `) || help.stdout.startsWith(`${where}\n`), where).toBe(true);
      expect(help.stdout).toContain(command.summary);
      for (const [name, f] of Object.entries(command.options ?? {})) expect(help.stdout, `${where} --${name}`).toMatch(new RegExp(`--${name}\\b.*  ${escapeRegExp(f.description)}`));
      for (const example of command.examples) expect(help.stdout).toContain(`$ ${example}`);
    }
  });

  it("completion prints a script for bash, zsh and fish naming the commands and their flags; another shell is a usage error", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const out = await cli(["completion", shell]);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("agentrent");
      expect(out.stdout).toContain("execute");
      expect(out.stdout).toMatch(/--?no-stream|-l no-stream/);
    }
    const bash = spawnSync("bash", ["-c", `${(await cli(["completion", "bash"])).stdout}\nCOMP_WORDS=(agentrent ex); COMP_CWORD=1; _agentrent; echo "\${COMPREPLY[@]}"`], { encoding: "utf8" });
    expect(bash.stdout.trim()).toBe("execute");
    const other = await cli(["completion", "powershell"]);
    expect(other.code).toBe(EXIT.usage);
  });
});

describe("argument parsing", () => {
  it("finds one- and two-word commands with global flags anywhere, and parses the command's flags strictly", () => {
    const parsed = parseCommandLine(["--json", "execute", "agent-1234abcd", "--task", "do it", "--input", '{"a":1}', "--no-stream"], COMMANDS);
    expect(parsed.command?.path).toBe("execute");
    expect(parsed.positionals).toEqual(["agent-1234abcd"]);
    expect(parsed.values).toMatchObject({ json: true, task: "do it", input: '{"a":1}', "no-stream": true });

    const two = parseCommandLine(["listing", "pause", "--api-url", "http://x", "lst_" + "a".repeat(64)], COMMANDS);
    expect(two.command?.path).toBe("listing pause");
    expect(two.positionals).toEqual(["lst_" + "a".repeat(64)]);
    expect(two.values["api-url"]).toBe("http://x");

    const rent = parseCommandLine(["rent", "--model", "subscription", "lst_" + "b".repeat(64), "--duration", "90d", "-y"], COMMANDS);
    expect(rent.command?.path).toBe("rent");
    expect(rent.positionals).toEqual(["lst_" + "b".repeat(64)]);
    expect(rent.values).toMatchObject({ model: "subscription", duration: "90d", yes: true });

    const group = parseCommandLine(["keys"], COMMANDS);
    expect(group.command).toBeUndefined();
    expect(group.words).toEqual(["keys"]);
  });

  it("refuses unknown commands, unknown flags and flags of another command", () => {
    expect(() => parseCommandLine(["bogus"], COMMANDS)).toThrow(/Unknown command "bogus"/);
    expect(() => parseCommandLine(["keys", "rotate"], COMMANDS)).toThrow(/Unknown command "keys rotate".*keys create, keys list, keys limit, keys revoke/);
    expect(() => parseCommandLine(["search", "--task", "x"], COMMANDS)).toThrow(/^agentrent search has no flag --task\. Its flags: --category, --model, /);
    expect(() => parseCommandLine(["execute", "a", "--task"], COMMANDS)).toThrow(/^--task needs a value \(for example --task <value>\)\.$/);
    expect(() => parseCommandLine(["credentials", "--limt", "3"], COMMANDS)).toThrow(/^agentrent credentials has no flag --limt\. Did you mean --limit\?$/);
    expect(() => parseCommandLine(["keys", "list", "--json=yes"], COMMANDS)).toThrow(/^--json takes no value\.$/);
    // Never Node's own wording.
    for (const argv of [["search", "--task", "x"], ["execute", "a", "--task"], ["keys", "list", "--json=yes"], ["keys", "list", "-z"]]) {
      expect(() => parseCommandLine(argv, COMMANDS)).toThrow(expect.objectContaining({ message: expect.not.stringMatching(/Unknown option|positional argument|parseArgs|Option '/) }));
    }
  });

  it("suggests a close command", async () => {
    const r = await cli(["serch"]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/Did you mean: search/);
  });

  it("parses ETH amounts exactly and refuses anything else", () => {
    expect(ethAmount("0.012345678901234567", "--price")).toBe(12345678901234567n);
    expect(ethAmount("1", "--price")).toBe(10n ** 18n);
    expect(() => ethAmount("-1", "--price")).toThrow(/--price must be an amount of ETH/);
    expect(() => ethAmount("1e18", "--price")).toThrow(/--price/);
  });

  it("writes bigints as exact JSON integers", () => {
    expect(toJson({ cost_wei: 2n ** 70n, n: 1 }, 0)).toBe(`{"cost_wei":${(2n ** 70n).toString()},"n":1}`);
  });
});

describe("keystore (Web3 Secret Storage v3)", () => {
  it("round-trips a private key; a wrong password is refused by the MAC", () => {
    const key = generatePrivateKey();
    const keystore = encryptKeystore(key, "correct horse battery", FAST);
    expect(keystore).toMatchObject({ version: 3, address: privateKeyToAccount(key).address.slice(2).toLowerCase(), crypto: { cipher: "aes-128-ctr", kdf: "scrypt", kdfparams: { n: 1024, r: 8, p: 1, dklen: 32 } } });
    expect(JSON.stringify(keystore)).not.toContain(key.slice(2));
    expect(decryptKeystore(JSON.parse(JSON.stringify(keystore)), "correct horse battery")).toBe(key);
    const wrong = (() => {
      try {
        decryptKeystore(keystore, "wrong password");
      } catch (error) {
        return error;
      }
    })();
    expect(wrong).toBeInstanceOf(KeystoreError);
    expect(wrong).toMatchObject({ reason: "wrong_password" });
  });

  it("refuses a damaged keystore with what is wrong", () => {
    const keystore = encryptKeystore(generatePrivateKey(), "pw-pw-pw-pw", FAST);
    expect(() => decryptKeystore({ ...keystore, version: 2 }, "pw-pw-pw-pw")).toThrow(/version is not 3/);
    expect(() => decryptKeystore({ ...keystore, crypto: { ...keystore.crypto, cipher: "aes-256-cbc" } }, "pw-pw-pw-pw")).toThrow(/aes-128-ctr/);
    expect(() => decryptKeystore({ ...keystore, crypto: { ...keystore.crypto, ciphertext: "00".repeat(32) } }, "pw-pw-pw-pw")).toThrow(/Wrong keystore password/);
  });

  it("decrypts the specification's pbkdf2 and scrypt test vectors", () => {
    const expected = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d";
    const pbkdf2 = {
      version: 3,
      id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
      crypto: {
        cipher: "aes-128-ctr",
        cipherparams: { iv: "6087dab2f9fdbbfaddc31a909735c1e6" },
        ciphertext: "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
        kdf: "pbkdf2",
        kdfparams: { c: 262144, dklen: 32, prf: "hmac-sha256", salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd" },
        mac: "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2",
      },
    };
    const scrypt = {
      version: 3,
      id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
      crypto: {
        cipher: "aes-128-ctr",
        cipherparams: { iv: "83dbcc02d8ccb40e466191a123791e0e" },
        ciphertext: "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
        kdf: "scrypt",
        kdfparams: { dklen: 32, n: 262144, r: 1, p: 8, salt: "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19" },
        mac: "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097",
      },
    };
    expect(decryptKeystore(pbkdf2, "testpassword")).toBe(expected);
    expect(decryptKeystore(scrypt, "testpassword")).toBe(expected);
    expect(() => decryptKeystore(pbkdf2, "testpassworD")).toThrow(KeystoreError);
  });

  it("wallet import / wallet address: the keystore file is 0600, the key never printed; a wrong password exits 3", async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    const dir = mkdtempSync(join(tmpdir(), "agentrent-wallet-"));
    const imported = await cli(["wallet", "import", "--scrypt-n-log2", "10", "--json"], { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_PRIVATE_KEY: key, AGENTRENT_KEYSTORE_PASSWORD: "a long password" });
    expect(imported.code).toBe(0);
    const out = JSON.parse(imported.stdout) as { address: string; keystore: string };
    expect(out.address).toBe(address);
    expect(statSync(out.keystore).mode & 0o777).toBe(0o600);
    expect(imported.stdout + imported.stderr).not.toContain(key.slice(2));
    expect(readFileSync(out.keystore, "utf8")).not.toContain(key.slice(2));

    const shown = await cli(["wallet", "address"], { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_KEYSTORE_PASSWORD: "a long password" });
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout.trim()).toBe(address);

    const wrong = await cli(["wallet", "address"], { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_KEYSTORE_PASSWORD: "not the password" });
    expect(wrong.code).toBe(EXIT.auth);
    expect(wrong.stderr).toMatch(/Wrong password for the keystore/);

    const fresh = await cli(["wallet", "new", "--scrypt-n-log2", "10", "--out", join(dir, "second.json"), "--json"], { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_KEYSTORE_PASSWORD: "another password" });
    expect(fresh.code).toBe(0);
    const second = JSON.parse(fresh.stdout) as { address: string; keystore: string };
    const viaFlag = await cli(["wallet", "address", "--keystore", second.keystore], { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_KEYSTORE_PASSWORD: "another password" });
    expect(viaFlag.stdout.trim()).toBe(second.address);
  });
});

describe("settings and sessions", () => {
  it("resolves flag over env over config over stack.json, and says where each came from", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-settings-"));
    const stack = join(dir, "stack.json");
    writeFileSync(stack, JSON.stringify({ api_url: "http://127.0.0.1:1111", rpc_url: "http://127.0.0.1:2222", chain_id: 31337, contracts: { marketplace: "0x5fbdb2315678afecb367f032d93f642f64180aa3" } }));
    writeFileSync(join(dir, "config.json"), JSON.stringify({ rpc_url: "http://127.0.0.1:3333" }));
    const s = resolveSettings({ "api-url": "http://127.0.0.1:4444/v1" }, { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_STACK_FILE: stack, AGENTRENT_CHAIN_ID: "84532" });
    expect(s).toMatchObject({ apiUrl: "http://127.0.0.1:4444", rpcUrl: "http://127.0.0.1:3333", chainId: 84532, marketplace: "0x5FbDB2315678afecb367f032d93F642f64180aa3" });
    expect(s.sources).toEqual({ api_url: "--api-url", rpc_url: "config", chain_id: "AGENTRENT_CHAIN_ID", marketplace: "stack" });
  });

  it("stores the session in a 0600 file under the config dir; an expired one says to run login (exit 3)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-session-"));
    const env = { AGENTRENT_CONFIG_DIR: dir, AGENTRENT_API_URL: "http://127.0.0.1:9" };
    const settings = resolveSettings({}, env);
    saveSession(settings, { wallet: "0x0000000000000000000000000000000000000001", token: "expired.jwt.token", expires_at: Math.floor(Date.now() / 1000) - 10 });
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);
    expect(loadSession(settings)?.token).toBe("expired.jwt.token");
    expect(() => authenticatedApi(settings, env)).toThrow(/expired.*run `agentrent login`/);
    const r = await cli(["credentials"], env);
    expect(r.code).toBe(EXIT.auth);
    expect(r.stderr).toMatch(/run `agentrent login`/);
    expect(r.stderr).not.toContain("expired.jwt.token");

    const none = await cli(["search"], { AGENTRENT_API_URL: "http://127.0.0.1:9" });
    expect(none.code).toBe(EXIT.auth);
    expect(none.stderr).toMatch(/Not signed in to http:\/\/127\.0\.0\.1:9: run `agentrent login`/);
  });

  it("an unreachable API is exit 8 with what to check", async () => {
    const r = await cli(["search", "--json"], { AGENTRENT_API_URL: "http://127.0.0.1:9", AGENTRENT_API_KEY: "svc_test_" + "x".repeat(40) });
    expect(r.code).toBe(EXIT.unavailable);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "connection_failed", exit_code: 8 } });
    expect(r.stdout + r.stderr).not.toContain("x".repeat(40));
  });
});

describe("bad input", () => {
  it("missing flags and arguments are usage errors (exit 2) naming what is missing", async () => {
    const cases: [string[], RegExp][] = [
      [["execute", "agent-1234abcd"], /--task is required/],
      [["execute"], /missing argument/],
      [["keys", "create"], /--label is required/],
      [["creators", "apply"], /--name is required/],
      [["register", "x.json"], /--model is required/],
      [["rent", "lst_" + "a".repeat(64), "--model", "weekly"], /--model must be one of one_time, subscription, per_query/],
      [["search", "--limit", "500"], /--limit must be an integer from 1 to 100/],
      [["show", "a", "b"], /unexpected argument "b"/],
      [["review", "reject-creator", "0x0000000000000000000000000000000000000001"], /--reason is required/],
      [["listing", "close", "lst_" + "a".repeat(64)], /pass --yes/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: EXIT.usage });
      expect(r.stderr).toMatch(message);
    }
  });

  it("no wallet configured is exit 3 and says how to configure one", async () => {
    const r = await cli(["login"], { AGENTRENT_API_URL: "http://127.0.0.1:9" });
    expect(r.code).toBe(EXIT.auth);
    expect(r.stderr).toMatch(/No wallet: set AGENTRENT_PRIVATE_KEY.*agentrent wallet new/);
  });

  it("validate: a bad manifest lists every problem with its JSON pointer (exit 6); a good one passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrent-manifest-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ name: "Bad Name", category: "cooking", description: "x", model: { provider: "provider_a" }, system_prompt: "p", entrypoint_url: "https://example.com/a", input_schema: {}, output_schema: {}, tools: "none", timeout_seconds: 900 }));
    const r = await cli(["validate", bad]);
    expect(r.code).toBe(EXIT.invalid);
    for (const pointer of ["/name", "/category", "/model/model", "/tools", "/timeout_seconds"]) expect(r.stderr).toContain(`  ${pointer}  `);
    const json = await cli(["validate", bad, "--json"]);
    expect(json.code).toBe(EXIT.invalid);
    const body = JSON.parse(json.stdout) as { valid: boolean; problems: { pointer: string; code: string }[] };
    expect(body.valid).toBe(false);
    expect(body.problems).toContainEqual(expect.objectContaining({ pointer: "/name", code: "not_kebab_case" }));
    expect(body.problems).toContainEqual(expect.objectContaining({ pointer: "/category", code: "unknown_category" }));

    const notJson = join(dir, "broken.json");
    writeFileSync(notJson, "{ name: ");
    const broken = await cli(["validate", notJson]);
    expect(broken.code).toBe(EXIT.invalid);
    expect(broken.stderr).toMatch(/invalid_json/);
    expect((await cli(["validate", join(dir, "missing.json")])).code).toBe(EXIT.usage);

    const made = await cli(["init", "--no-input", "--name", "clause-finder", "--category", "legal", "--description", "Finds clauses.", "--model", "m1", "--system-prompt", "Find clauses.", "--out", join(dir, "good.json")]);
    expect(made.code).toBe(0);
    const good = await cli(["validate", join(dir, "good.json")]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/is valid: clause-finder \(legal\), declarative agent/);
    const incomplete = await cli(["init", "--no-input", "--name", "x-agent"]);
    expect(incomplete.code).toBe(EXIT.usage);
    expect(incomplete.stderr).toMatch(/Missing --category, --description/);
  });

  it("the built binary: unknown command exits 2, a bad manifest exits 6, help exits 0", () => {
    const bin = buildCliBin(mkdtempSync(join(tmpdir(), "agentrent-build-")), 120_000);
    const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, AGENTRENT_CONFIG_DIR: mkdtempSync(join(tmpdir(), "agentrent-bin-")) }, timeout: 60_000 });
    const unknown = run(["frobnicate"]);
    expect(unknown.status).toBe(EXIT.usage);
    expect(unknown.stderr).toMatch(/agentrent: Unknown command "frobnicate"/);
    const dir = mkdtempSync(join(tmpdir(), "agentrent-binm-"));
    writeFileSync(join(dir, "m.json"), JSON.stringify({ name: "ok-name" }));
    const bad = run(["validate", join(dir, "m.json")]);
    expect(bad.status).toBe(EXIT.invalid);
    expect(bad.stderr).toMatch(/\/category {2}required/);
    const help = run(["help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/agentrent <command>/);
  }, 150_000);
});
