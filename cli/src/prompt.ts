// Questions to the person at the terminal: answers, hidden input (passwords, keys) and confirmations.
// On a terminal that can go raw, they are @clack/prompts' (line editing, masked input; Ctrl-C or Esc
// cancels, exit 130); elsewhere (piped input, a test), one line per answer from a line reader kept for
// the whole command, so answers typed or piped ahead are not lost between questions. @clack/prompts is
// loaded by the first question only: most commands ask nothing, and the CLI's start stays small.
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { CliError, EXIT } from "./errors.ts";

export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean };

type Clack = typeof import("@clack/prompts");

/** Thrown when the person cancels a question (Ctrl-C or Esc on a terminal). */
export const cancelled = (what = "Cancelled."): CliError => new CliError(what, EXIT.interrupted, "cancelled");

export class Prompter {
  private rl: Interface | undefined;
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;
  private clack: Promise<Clack> | undefined;

  constructor(
    readonly input: InputStream,
    readonly output: OutputStream,
  ) {}

  /** Both ends are terminals: a person can be asked. */
  get interactive(): boolean {
    return Boolean(this.input.isTTY && this.output.isTTY);
  }

  /** A terminal that can be put in raw mode, where the prompts read keys (not lines). */
  private get rich(): boolean {
    return this.interactive && typeof this.input.setRawMode === "function";
  }

  private prompts(): Promise<Clack> {
    return (this.clack ??= import("@clack/prompts"));
  }

  /** The prompts' streams: the command's own (a test's, in-process), not the process's. */
  private common() {
    return { input: this.input as unknown as Readable, output: this.output as unknown as Writable, withGuide: false };
  }

  private reader(): Interface {
    if (this.rl) return this.rl;
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    rl.on("line", (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.lines.push(line);
    });
    rl.on("close", () => {
      this.ended = true;
      this.waiting?.(undefined);
      this.waiting = undefined;
    });
    return (this.rl = rl);
  }

  /** The next line of the input (undefined once it has ended), after writing `question`. */
  private async line(question: string, echo: boolean): Promise<string | undefined> {
    this.reader();
    this.output.write(question);
    const queued = this.lines.shift();
    const line = queued !== undefined ? queued : this.ended ? undefined : await new Promise<string | undefined>((resolve) => (this.waiting = resolve));
    // Nothing echoes piped input: end the question's line so what follows starts on its own.
    this.output.write(echo && line !== undefined ? `${line}\n` : "\n");
    return line;
  }

  /** The answer to `question` (trimmed; `fallback` when empty); undefined once the input has ended. */
  async ask(question: string, fallback?: string): Promise<string | undefined> {
    if (this.rich) {
      const { text, isCancel } = await this.prompts();
      const answer = await text({ message: question, ...(fallback ? { placeholder: fallback, defaultValue: fallback } : {}), ...this.common() });
      if (isCancel(answer)) throw cancelled();
      return (answer ?? "").trim() === "" ? (fallback ?? "") : answer.trim();
    }
    const suffix = fallback === undefined || fallback === "" ? "" : ` [${fallback}]`;
    const line = await this.line(`${question}${suffix}: `, true);
    if (line === undefined) return undefined;
    return line.trim() === "" ? (fallback ?? "") : line.trim();
  }

  /** A secret (a password, a key): masked on a terminal, never echoed; undefined once the input has ended. */
  async secret(question: string): Promise<string | undefined> {
    if (this.rich) {
      const { password, isCancel } = await this.prompts();
      const answer = await password({ message: question, ...this.common() });
      if (isCancel(answer)) throw cancelled();
      return answer ?? "";
    }
    return this.line(`${question}: `, false);
  }

  /** Yes or no, no by default. */
  async confirm(question: string): Promise<boolean> {
    if (this.rich) {
      const { confirm, isCancel } = await this.prompts();
      const answer = await confirm({ message: question, initialValue: false, ...this.common() });
      if (isCancel(answer)) throw cancelled();
      return answer;
    }
    const line = await this.line(`${question} [y/N]: `, true);
    return line !== undefined && /^y(es)?$/i.test(line.trim());
  }

  /** Writes a line for the person answering (a refused answer's reason). */
  say(line: string): void {
    this.output.write(`${line}\n`);
  }

  /** All of the input (a secret piped in). */
  async readAll(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  }

  close(): void {
    this.rl?.close();
  }
}
