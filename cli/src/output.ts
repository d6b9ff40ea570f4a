// Output: human-readable text by default, one JSON document on stdout with --json. Progress and
// notices go to stderr, so stdout stays the result.
import { EXIT, type CliError } from "./errors.ts";

export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** JSON with bigints written as exact integers (wei amounts exceed 2^53). */
export function toJson(value: unknown, indent = 2): string {
  const marker = "__agentrent_bigint__:";
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${marker}${v.toString()}` : v), indent);
  return (text ?? "null").replace(new RegExp(`"${marker}(-?\\d+)"`, "g"), "$1");
}

export class Output {
  private emitted = false;

  constructor(
    readonly json: boolean,
    readonly streams: Streams = { stdout: process.stdout, stderr: process.stderr },
  ) {}

  /** The command's result: `data` as JSON with --json, else the human rendering. Called once. */
  result(data: unknown, human: () => void): void {
    if (this.json) {
      if (this.emitted) throw new Error("one JSON document per command");
      this.emitted = true;
      this.streams.stdout.write(toJson(data) + "\n");
    } else {
      human();
    }
  }

  /** A line of the human result on stdout (never in --json mode). */
  line(text = ""): void {
    if (!this.json) this.streams.stdout.write(text + "\n");
  }

  /** Raw text on stdout as it arrives (streamed task output), human mode only. */
  write(text: string): void {
    if (!this.json) this.streams.stdout.write(text);
  }

  /** A notice for the person at the terminal (stderr), in both modes. */
  notice(text: string): void {
    this.streams.stderr.write(text + "\n");
  }

  /** Aligned `key  value` lines. */
  table(rows: [string, unknown][]): void {
    const width = Math.max(0, ...rows.map(([k]) => k.length));
    for (const [key, value] of rows) this.line(`${key.padEnd(width)}  ${value === undefined || value === null ? "-" : String(value)}`);
  }

  error(error: CliError): void {
    if (this.json && !this.emitted) {
      this.emitted = true;
      this.streams.stdout.write(toJson({ error: { code: error.code, message: error.message, exit_code: error.exitCode, ...(error.details === undefined ? {} : { details: error.details }) } }) + "\n");
    }
    this.streams.stderr.write(`agentrent: ${error.message}\n`);
    if (error.exitCode === EXIT.usage && !this.json) this.streams.stderr.write("Run `agentrent help` for the commands, `agentrent <command> --help` for one.\n");
  }

  /** Progress on stderr while `task` runs: a spinner on a terminal; elsewhere each label once, as a plain
   * line (a log reads well, and --json keeps stdout clean). Hand-written rather than ora: ten lines, and
   * the CLI's start stays free of its dependencies. */
  async progress<T>(label: string, task: (update: (label: string) => void) => Promise<T>): Promise<T> {
    const tty = Boolean(this.streams.stderr.isTTY);
    if (!tty) {
      this.streams.stderr.write(`${label}...\n`);
      return task((next) => this.streams.stderr.write(`${next}...\n`));
    }
    const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    let current = label;
    let i = 0;
    const started = Date.now();
    const draw = () => this.streams.stderr.write(`\r\u001b[2K${frames[i++ % frames.length]} ${current} (${Math.floor((Date.now() - started) / 1000)}s)`);
    draw();
    const timer = setInterval(draw, 100);
    try {
      return await task((next) => (current = next));
    } finally {
      clearInterval(timer);
      this.streams.stderr.write("\r\u001b[2K");
    }
  }
}
