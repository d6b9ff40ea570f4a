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

export interface LoggerOptions {
  /** `lambda`: the keys Powertools for AWS Lambda's Logger writes (level in capitals, timestamp, service,
   * the function's name, memory and version, the X-Ray trace id, cold_start), so CloudWatch Logs
   * Insights queries and dashboards made for Powertools read our lines as they are. `local` (default):
   * time, level, message. */
  format?: "local" | "lambda";
  /** The `service` key of lambda lines. */
  service?: string;
}

// Why not Powertools' Logger itself: our redaction must apply to every line, by field name and by the
// shape of the value, at any depth; Powertools offers no hook that sees every value before it is
// written (its log formatter runs after its own attribute merging, and persistent keys, the error
// formatter and the Lambda context keys would each need their own redaction). Writing its JSON keys
// here keeps one redaction path, tested once (test/platform/logger.test.ts).
let coldStart = true;

function lambdaFields(service: string | undefined): Record<string, unknown> {
  const env = process.env;
  const fields: Record<string, unknown> = {
    service: service ?? env.POWERTOOLS_SERVICE_NAME ?? "service_undefined",
    cold_start: coldStart,
  };
  if (env.AWS_LAMBDA_FUNCTION_NAME) fields.function_name = env.AWS_LAMBDA_FUNCTION_NAME;
  if (env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE) fields.function_memory_size = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  if (env.AWS_LAMBDA_FUNCTION_VERSION) fields.function_version = env.AWS_LAMBDA_FUNCTION_VERSION;
  // Lambda sets the trace header per invocation; the root is the trace id X-Ray shows.
  const root = /Root=([^;]+)/.exec(env._X_AMZN_TRACE_ID ?? "")?.[1];
  if (root) fields.xray_trace_id = root;
  return fields;
}

/** Marks the end of the first invocation of this environment (lines after it carry cold_start false). */
export function markWarm(): void {
  coldStart = false;
}

export function createLogger(level: LogLevel = "info", write: (line: string) => void = (line) => process.stderr.write(line + "\n"), options: LoggerOptions = {}): Logger {
  const emit = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const head =
      options.format === "lambda"
        ? { timestamp: new Date().toISOString(), level: at.toUpperCase(), message: redactText(message), ...lambdaFields(options.service) }
        : { time: new Date().toISOString(), level: at, message: redactText(message) };
    write(JSON.stringify({ ...head, ...(fields ? (redact(fields) as object) : {}) }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}
