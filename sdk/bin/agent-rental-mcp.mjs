#!/usr/bin/env node
// The stdio MCP server. Configuration: AGENT_RENTAL_API_URL and AGENT_RENTAL_API_KEY in the environment.
import "../dist/mcp-bin.js";
