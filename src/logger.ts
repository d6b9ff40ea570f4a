// Structured JSON logs (one line each, to stderr). Fields whose names say they hold a secret are
// replaced before anything is written, so a key, token or signature cannot reach a log by accident; so
// is any text, in any field or the message, shaped like a secret of the service's own (an API key, a
// webhook signing secret, a bearer credential), since an error message can quote one.
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /authorization|private[_-]?key|secret|token|api[_-]?key|password|signature|cookie|provider[_-]?key/i;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Text shaped like a secret: the service's API keys, Standard Webhooks secrets, and whatever follows
 * "Bearer" (a JWT, an API key, a provider key). */
const SECRET_TEXT = /(?<![A-Za-z0-9])svc_(?:test|live)_[A-Za-z0-9_-]{8,}|(?<![A-Za-z0-9])whsec_[A-Za-z0-9+/=]{8,}|\b(Bearer(?:\s+|%20|\+))[^\s"]{8,}/gi;

/** `text` with every secret-shaped part replaced. */
export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (_match, bearer: string | undefined) => `${bearer ?? ""}[redacted]`);
}

/** Replaces the values of secret-named fields, and secret-shaped text in any string, at any depth. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = SECRET_FIELD.test(key) ? "[redacted]" : redact(inner, depth + 1);
  return out;
}

export function createLogger(level: LogLevel = "info", write: (line: string) => void = (line) => process.stderr.write(line + "\n")): Logger {
  const emit = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, message: redactText(message), ...(fields ? (redact(fields) as object) : {}) }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}
