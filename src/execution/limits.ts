// The execution's fixed limits.

/** The specification's limit on concurrent runs per listing. */
export const RUNS_PER_LISTING = 20;
/** Heap of a declarative agent's sandbox, MiB. */
export const SANDBOX_MEMORY_MB = 128;
/** Tool steps a declarative agent may take before it must answer. */
export const MAX_TOOL_STEPS = 8;
