import type { Plugin } from "esbuild";

/** The esbuild plugin that trims the agent runtime's bundles (see runtime-trim-plugin.mjs). */
export function runtimeTrimPlugin(root: string): Plugin;
