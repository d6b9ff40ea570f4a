import { describe, expect, it } from "vitest";
import { knownResource, redirectUriProblem, resourceCovers, resourceMetadataUrl } from "./resources.ts";

const base = "https://api.example.com";

describe("knownResource", () => {
  it("names the service, its MCP endpoint and an A2A agent, in canonical form", () => {
    expect(knownResource(base, "https://api.example.com")).toBe(base);
    expect(knownResource(base, "https://API.example.com/")).toBe(base);
    expect(knownResource(base, "https://api.example.com/v1/mcp")).toBe(`${base}/v1/mcp`);
    expect(knownResource(base, "https://api.example.com/a2a/writer-1a2b3c4d")).toBe(`${base}/a2a/writer-1a2b3c4d`);
  });

  it("refuses another origin, another path, a query, a fragment, credentials, and junk", () => {
    for (const indicator of ["https://other.example.com", "http://api.example.com", "https://api.example.com:8443", "https://api.example.com/v1/listings", "https://api.example.com/v1/mcp/x", "https://api.example.com/a2a/a/b", "https://api.example.com/a2a/a%20b", "https://api.example.com/?x=1", "https://api.example.com/#f", "https://user@api.example.com", "not a url", ""]) {
      expect(knownResource(base, indicator), indicator).toBeNull();
    }
  });

  it("keeps a base URL's own path (a stage) as part of every resource", () => {
    expect(knownResource("https://gw.example.com/prod", "https://gw.example.com/prod/v1/mcp")).toBe("https://gw.example.com/prod/v1/mcp");
    expect(knownResource("https://gw.example.com/prod", "https://gw.example.com/v1/mcp")).toBeNull();
  });
});

describe("resourceCovers", () => {
  it("lets the service's token open every path, a narrower one only its own path and below", () => {
    expect(resourceCovers(base, base, "/v1/credentials")).toBe(true);
    expect(resourceCovers(base, base, "/a2a/x")).toBe(true);
    expect(resourceCovers(base, `${base}/v1/mcp`, "/v1/mcp")).toBe(true);
    expect(resourceCovers(base, `${base}/v1/mcp`, "/v1/mcpx")).toBe(false);
    expect(resourceCovers(base, `${base}/v1/mcp`, "/a2a/x")).toBe(false);
    expect(resourceCovers(base, `${base}/a2a/x`, "/a2a/x")).toBe(true);
    expect(resourceCovers(base, `${base}/a2a/x`, "/a2a/y")).toBe(false);
    expect(resourceCovers(base, "https://other.example.com", "/v1/mcp")).toBe(false);
  });
});

describe("resourceMetadataUrl", () => {
  it("inserts the well-known segment between the host and the path (RFC 9728 §3.1)", () => {
    expect(resourceMetadataUrl(`${base}/`)).toBe(`${base}/.well-known/oauth-protected-resource`);
    expect(resourceMetadataUrl(base, "/v1/mcp")).toBe(`${base}/.well-known/oauth-protected-resource/v1/mcp`);
  });
});

describe("redirectUriProblem", () => {
  it("accepts https and loopback http, refuses the rest (OAuth 2.1 §2.3.1)", () => {
    for (const ok of ["https://app.example/cb", "http://127.0.0.1:7777/callback", "http://localhost/cb", "http://[::1]:9/cb"]) expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of ["http://app.example/cb", "http://10.0.0.2/cb", "https://app.example/cb#x", "javascript:alert(1)", "relative/cb", "ftp://app.example/cb"]) expect(redirectUriProblem(bad), bad).not.toBeNull();
  });
});
