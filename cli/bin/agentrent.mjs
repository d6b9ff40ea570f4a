#!/usr/bin/env node
// agentrent: the command line of the agent rental service (the bundled build in dist/). Node 22.1+
// keeps the bundle's compiled code in its on-disk cache, so later starts skip compiling it.
import module from "node:module";

module.enableCompileCache?.();
await import("../dist/agentrent.js");
