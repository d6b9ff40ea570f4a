// The Lambda entry points (functions/*.ts) build their services from process.env when first loaded,
// once per environment, as in the cloud. A test of them gives the process its test environment and a
// fresh module registry (so each entry point boots from this file's environment, as a new Lambda
// environment would, even when an earlier file in the same worker loaded it), and puts the process's
// environment back afterwards.
import { afterAll, beforeAll, vi } from "vitest";

/** For the file's lifetime: `process.env` gets `env()`, and entry points imported after it load anew. */
export function useLambdaEnvironment(env: () => Record<string, string>): void {
  let saved: NodeJS.ProcessEnv | undefined;
  beforeAll(() => {
    saved = { ...process.env };
    Object.assign(process.env, env());
    vi.resetModules();
  });
  afterAll(() => {
    if (!saved) return;
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
}
