// The sandbox: one Lambda execution environment per task run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { APP_STAGE, ARCHITECTURE, RUNNER_TIMEOUT_SECONDS, RUNTIME } from "./common";

/** Native packages the runner loads at run time; esbuild cannot bundle them. */
const RUNNER_NATIVE_PACKAGES = ["isolated-vm"];

/**
 * SST installs `nodejs.install` packages (for linux/arm64) into the function package at deploy,
 * at the version the project's package.json declares; a package the project does not declare
 * cannot be installed, so only declared ones are listed.
 */
function declaredNativePackages() {
  const pkg = JSON.parse(readFileSync(join($cli.paths.root, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const declared = { ...pkg.devDependencies, ...pkg.dependencies };
  return RUNNER_NATIVE_PACKAGES.filter((name) => name in declared);
}

/**
 * Tenant isolation (Lambda `TenancyConfig`, mode PER_TENANT): an execution environment only ever
 * serves invocations that carry the same tenant id. The caller invokes with
 * `InvokeWithResponseStreamCommand({ FunctionName: RUNNER_FUNCTION_NAME, TenantId: runId, Payload })`
 * (the `X-Amz-Tenant-Id` header; src/adapters/sandbox/lambda.ts), so with a fresh run id per run no
 * environment (memory, /tmp, module state) is ever shared between two runs. The setting cannot
 * change after the function is created, and it excludes function URLs, provisioned concurrency,
 * SnapStart and event-source mappings: the runner is only ever invoked directly.
 *
 * The runner has no links, no secrets and no permissions beyond its logs: everything a run needs
 * (the agent definition, the task input, the creator's provider key decrypted for this run) comes
 * in the invocation payload from the API, so code escaping the agent runtime finds nothing to use.
 * No VPC: outbound traffic goes through the application's egress guard.
 */
export function createRunner() {
  const nativePackages = declaredNativePackages();
  return new sst.aws.Function("Runner", {
    handler: "functions/runner.handler",
    runtime: RUNTIME,
    architecture: ARCHITECTURE,
    memory: "1024 MB",
    timeout: `${RUNNER_TIMEOUT_SECONDS} seconds`,
    environment: { STAGE: APP_STAGE },
    // The handler streams its answer (awslambda.streamifyResponse); the API reads it as it comes.
    streaming: true,
    // `sst dev` deploys the real, isolated runner instead of a stub that runs on the laptop.
    dev: false,
    // The same trim as the local sandbox bundle (scripts/runtime-trim-plugin.mjs): under 1 MB.
    nodejs: { plugins: "./stacks/runner-plugins.mjs", ...(nativePackages.length > 0 ? { install: nativePackages } : {}) },
    transform: {
      function: { tenancyConfig: { tenantIsolationMode: "PER_TENANT" } },
    },
  });
}
