// Interactive input on a terminal: questions, hidden input (passwords, keys) and confirmations.
// Nothing here is used when stdin is not a TTY.
import { createInterface } from "node:readline";

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
