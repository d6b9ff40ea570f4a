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

/** Back to the start of the line, and the line erased (what a spinner redraws over). */
const CLEAR_LINE = "\r\u001b[2K";
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Output {
  private emitted = false;
  /** The spinner on screen, if any: a notice clears its line first and draws it again after. */
  private spinner: { draw(): void } | undefined;

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
    if (!this.spinner) return void this.streams.stderr.write(text + "\n");
    this.streams.stderr.write(`${CLEAR_LINE}${text}\n`);
    this.spinner.draw();
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

  /**
   * Progress on stderr while `task` runs: a spinner with the label and the seconds waited on a terminal;
   * elsewhere each label once, as a plain line (a log reads well, and --json keeps stdout clean).
   * Hand-written: @clack/prompts' spinner (the prompts' library) puts stdin in raw mode while it spins
   * and ends the process with exit code 0 on Ctrl-C, and adds its own SIGINT handlers; a run
   * interrupted under it could not print its id or exit 130. This one only writes to stderr.
   */
  async progress<T>(label: string, task: (update: (label: string) => void) => Promise<T>): Promise<T> {
    const tty = Boolean(this.streams.stderr.isTTY);
    if (!tty) {
      this.streams.stderr.write(`${label}...\n`);
      return task((next) => this.streams.stderr.write(`${next}...\n`));
    }
    let current = label;
    let i = 0;
    const started = Date.now();
    const draw = () => this.streams.stderr.write(`${CLEAR_LINE}${FRAMES[i++ % FRAMES.length]} ${current} (${Math.floor((Date.now() - started) / 1000)}s)`);
    const outer = this.spinner;
    this.spinner = { draw };
    draw();
    const timer = setInterval(draw, 100);
    try {
      return await task((next) => {
        current = next;
        draw();
      });
    } finally {
      clearInterval(timer);
      this.spinner = outer;
      this.streams.stderr.write(CLEAR_LINE);
    }
  }
}
