#!/usr/bin/env node
// The agentrent launcher: registers tsx (TypeScript sources run as they are) and starts the CLI.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
