// The shape every catalogue tool has inside the runtime, before it is handed to the AI SDK.

/** A configured tool: what the model sees (description, JSON Schema of the arguments) and what runs. */
export interface RuntimeTool {
  description: string;
  inputSchema: Record<string, unknown>;
  /** Runs one call. A throw becomes an error result for the model (see tools/index.ts), never a failed run. */
  execute(input: unknown, signal: AbortSignal): Promise<unknown>;
}

/** A refusal or a bad argument, worded for the model. */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}
