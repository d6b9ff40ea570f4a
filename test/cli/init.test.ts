// `agentrent init` on a terminal: each answer is checked as it is given (by the service's own manifest
// validator, and a URL the service will call by reaching it) and asked again with the reason, in
// process through `main` with the answers on its stdin: read line by line, and on a terminal that reads
// keys through @clack/prompts (with Ctrl-C, and masked password input for a keystore).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { mkdtempSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { AddressInfo } from "node:net";
import { main } from "../../cli/src/main.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { freePort } from "../../local/ports.ts";
import { until } from "../support/until.ts";

let agent: Server;
let agentUrl: string;
let closedUrl: string;

beforeAll(async () => {
  agent = createServer((_req, res) => res.writeHead(405).end());
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/run`;
  closedUrl = `http://127.0.0.1:${await freePort()}/run`;
});
afterAll(() => new Promise<void>((resolve) => agent.close(() => resolve())));

/** Runs `agentrent init` as on a terminal, `answers` typed one per line (the input then ends). */
async function init(answers: string[], args: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "agentrent-init-"));
  // A terminal to the command (isTTY) that cannot go raw, so it is read line by line.
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  stdin.end(answers.map((a) => `${a}\n`).join(""));
  let stderr = "";
  let stdout = "";
  const sink = (append: (s: string) => void) =>
    Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, done) {
          append(chunk.toString());
          done();
        },
      }),
      { isTTY: true },
    );
  const code = await main(["init", ...args], {
    env: { HOME: dir, AGENTRENT_CONFIG_DIR: dir, AGENTRENT_STACK_FILE: "", LOCAL_DATA_DIR: "", NO_COLOR: "1" },
    cwd: dir,
    stdin,
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
  });
  return { code, stdout, stderr, dir };
}

describe("init checks each answer as it is given", () => {
  it("asks again after a refused name, category, empty description, kind, bad URL and unreachable URL, then writes the manifest of the accepted answers", async () => {
    const result = await init(["Bad Name", "good-agent", "astrology", "research", "", "Finds facts", "remote", "connected", "provider_z", "provider_a", "gpt-x", "not a url", closedUrl, "n", agentUrl]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const refusals = result.stderr.split("\n").filter((line) => line.includes("✗"));
    expect(refusals).toHaveLength(7);
    expect(refusals[0]).toMatch(/try again/);
    expect(result.stderr).toContain("an answer is needed");
    expect(result.stderr).toContain('answer "declarative" or "connected"');
    expect(result.stderr).toMatch(/could not be reached\. Keep it anyway/);
    expect(result.stderr).toContain("give a URL that answers");
    const manifest = JSON.parse(readFileSync(join(result.dir, "good-agent.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: "good-agent", category: "research", description: "Finds facts", model: { provider: "provider_a", model: "gpt-x" }, entrypoint_url: agentUrl });
    expect(manifest).not.toHaveProperty("system_prompt");
  });

  it("keeps an unreachable URL when asked to (the agent need not be up while its manifest is written)", async () => {
    const result = await init(["kept-agent", "research", "Finds facts", "connected", "provider_a", "gpt-x", closedUrl, "y"]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(JSON.parse(readFileSync(join(result.dir, "kept-agent.json"), "utf8"))).toMatchObject({ entrypoint_url: closedUrl });
  });

  it("input that ends before every question is answered is a usage error and writes nothing", async () => {
    const result = await init(["half-agent", "research"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/input ended before "Description" was answered; nothing was written/);
    expect(existsSync(join(result.dir, "half-agent.json"))).toBe(false);
  });

  it("values given as flags are not asked for", async () => {
    const result = await init(["Summarises a text", "declarative", "provider_a", "gpt-x", "Summarise the text."], ["--name", "flag-agent", "--category", "content"]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stderr).not.toContain("Name (kebab-case)");
    expect(JSON.parse(readFileSync(join(result.dir, "flag-agent.json"), "utf8"))).toMatchObject({ name: "flag-agent", category: "content", system_prompt: "Summarise the text." });
  });
});

/**
 * `agentrent <args>` on a terminal that reads keys (raw mode), where questions are @clack/prompts':
 * `type` sends keystrokes once `question` has been drawn `times` times (so each answer goes to the
 * question the person sees).
 */
function onTerminal(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "agentrent-terminal-"));
  // In process, the prompts' colours follow the test process's FORCE_COLOR (npm test sets it), not the
  // command's NO_COLOR: what is read here is the text without its colour codes.
  const uncoloured = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let stderr = "";
  let stdout = "";
  const sink = (append: (s: string) => void) =>
    Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, done) {
          append(uncoloured(chunk.toString()));
          done();
        },
      }),
      { isTTY: true, columns: 100 },
    );
  const done = main(args, {
    env: { HOME: dir, AGENTRENT_CONFIG_DIR: dir, AGENTRENT_STACK_FILE: "", LOCAL_DATA_DIR: "", NO_COLOR: "1", ...env },
    cwd: dir,
    stdin,
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
  }).then((code) => ({ code, stdout, stderr }));
  const type = async (question: string, keys: string, times = 1) => {
    await until(`"${question}" asked (${times})`, () => stderr.split(`◆  ${question}`).length - 1 >= times, 10_000);
    stdin.write(keys);
  };
  return { dir, done, type, stderr: () => stderr };
}

describe("on a terminal that reads keys, the questions are @clack/prompts'", () => {
  it("init asks, refuses an answer with the reason and asks again, then writes the manifest", async () => {
    const session = onTerminal(["init", "--category", "research", "--provider", "provider_a", "--model", "gpt-x", "--system-prompt", "Find facts."]);
    await session.type("Name (kebab-case)", "Bad Name\r");
    await session.type("Name (kebab-case)", "good-agent\r", 2);
    await session.type("Description", "Finds facts\r");
    const result = await session.done;
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stderr).toMatch(/✗ .*kebab.*; try again\./);
    expect(result.stderr).toContain("◇  Name (kebab-case)\ngood-agent");
    expect(JSON.parse(readFileSync(join(session.dir, "good-agent.json"), "utf8"))).toMatchObject({ name: "good-agent", description: "Finds facts", system_prompt: "Find facts." });
  });

  it("Ctrl-C at a question cancels the command (exit 130) and writes nothing", async () => {
    const session = onTerminal(["init", "--category", "research", "--provider", "provider_a", "--model", "gpt-x", "--system-prompt", "Find facts."]);
    await session.type("Name (kebab-case)", "half\u0003");
    const result = await session.done;
    expect(result.code).toBe(EXIT.interrupted);
    expect(result.stderr).toContain("agentrent: Cancelled.");
    expect(readdirSync(session.dir).filter((f) => f.endsWith(".json"))).toEqual([]);
  });

  it("wallet new asks for the password twice, masked: it never appears on the terminal", async () => {
    const password = "correct horse battery";
    const session = onTerminal(["wallet", "new", "--scrypt-n-log2", "10", "--json"]);
    await session.type("New keystore password (8+ characters)", `${password}\r`);
    await session.type("Repeat the password", `${password}\r`);
    const result = await session.done;
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stderr + result.stdout).not.toContain(password);
    expect(result.stderr).toContain("▪".repeat(password.length));
    const { keystore, address } = JSON.parse(result.stdout) as { keystore: string; address: string };
    const unlocked = onTerminal(["wallet", "address", "--keystore", keystore], { AGENTRENT_CONFIG_DIR: session.dir });
    await unlocked.type("Keystore password", "not the password\r");
    expect(await unlocked.done).toMatchObject({ code: EXIT.auth, stderr: expect.stringContaining("Wrong password for the keystore") });
    const again = onTerminal(["wallet", "address", "--keystore", keystore]);
    await again.type("Keystore password", `${password}\r`);
    expect(await again.done).toMatchObject({ code: EXIT.ok, stdout: `${address}\n` });
  });
});
