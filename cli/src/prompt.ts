// Interactive input on a terminal: questions, hidden input (passwords, keys) and confirmations.
// Nothing here is used when stdin is not a TTY.
import { createInterface, type Interface } from "node:readline";

export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean };
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * Questions over one line reader for a whole command (lines typed ahead, or piped in a test, are kept
 * between questions). `interactive` is true when both ends are terminals. Closed when the command ends.
 */
export class Prompter {
  private rl: Interface | undefined;
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(
    readonly input: InputStream,
    readonly output: OutputStream,
  ) {}

  get interactive(): boolean {
    return Boolean(this.input.isTTY && this.output.isTTY);
  }

  private reader(): Interface {
    if (this.rl) return this.rl;
    // Line editing needs a terminal that can be put in raw mode; anything else is read line by line.
    const terminal = this.interactive && typeof (this.input as { setRawMode?: unknown }).setRawMode === "function";
    const rl = createInterface({ input: this.input, output: this.output, terminal });
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

  /** The next answer to `question` (trimmed; `fallback` when empty); undefined once the input has ended. */
  async ask(question: string, fallback?: string): Promise<string | undefined> {
    const rl = this.reader();
    const suffix = fallback === undefined || fallback === "" ? "" : ` [${fallback}]`;
    rl.setPrompt(`${question}${suffix}: `);
    rl.prompt();
    const queued = this.lines.shift();
    const line = queued !== undefined ? queued : this.ended ? undefined : await new Promise<string | undefined>((resolve) => (this.waiting = resolve));
    // Off a terminal the answer is not echoed: end the question's line so what follows starts on its own.
    if (!rl.terminal) this.output.write(line === undefined ? "\n" : `${line}\n`);
    if (line === undefined) return undefined;
    return line.trim() === "" ? (fallback ?? "") : line.trim();
  }

  /** Writes a line for the person answering (a refused answer's reason). */
  say(line: string): void {
    this.output.write(`${line}\n`);
  }

  close(): void {
    this.rl?.close();
  }
}

export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

export function ask(question: string, fallback?: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const suffix = fallback === undefined || fallback === "" ? "" : ` [${fallback}]`;
  return new Promise((resolve) =>
    rl.question(`${question}${suffix}: `, (answer) => {
      rl.close();
      resolve(answer.trim() === "" ? (fallback ?? "") : answer.trim());
    }),
  );
}

/** Reads a line without echoing it. */
export async function askHidden(question: string): Promise<string> {
  return (await askHiddenMany([question]))[0]!;
}

/** Reads several lines without echoing them, through one interface (so typed-ahead lines are kept). */
export function askHiddenMany(questions: string[]): Promise<string[]> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let muted = false;
  const writable = rl as unknown as { _writeToOutput: (text: string) => void };
  writable._writeToOutput = (text: string) => {
    if (!muted) process.stderr.write(text);
  };
  const answers: string[] = [];
  return new Promise((resolve) => {
    const next = () => {
      const question = questions[answers.length];
      if (question === undefined) {
        rl.close();
        return resolve(answers);
      }
      muted = false;
      rl.question(`${question}: `, (answer) => {
        process.stderr.write("\n");
        answers.push(answer);
        next();
      });
      muted = true;
    };
    next();
  });
}

export async function confirm(question: string): Promise<boolean> {
  const answer = await ask(`${question} [y/N]`);
  return /^y(es)?$/i.test(answer);
}

/** Reads all of stdin (for secrets piped in). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
