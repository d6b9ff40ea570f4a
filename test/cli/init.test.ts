// `agentrent init` on a terminal: each answer is checked as it is given (by the service's own manifest
// validator, and a URL the service will call by reaching it) and asked again with the reason, in
// process through `main` with the answers on its stdin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { mkdtempSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { AddressInfo } from "node:net";
import { main } from "../../cli/src/main.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { freePort } from "../../local/ports.ts";

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
