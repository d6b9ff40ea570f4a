import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.ts";
import { A2aError, jsonRpcErrorOf } from "./errors.ts";
import { checkRequest, checkVersion, executeRequestOf } from "./params.ts";
import { Message } from "@a2a-js/sdk";

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof A2aError ? error.rpcCode : "not an A2aError";
  }
  return "no error";
};

describe("A2A requests", () => {
  it("checkRequest refuses what is not one JSON-RPC 2.0 request of a known method, and parameters of the wrong type", () => {
    expect(codeOf(() => checkRequest([]))).toBe(-32600);
    expect(codeOf(() => checkRequest({ jsonrpc: "1.0", id: 1, method: "GetTask" }))).toBe(-32600);
    expect(codeOf(() => checkRequest({ jsonrpc: "2.0", id: { a: 1 }, method: "GetTask" }))).toBe(-32600);
    expect(codeOf(() => checkRequest({ jsonrpc: "2.0", id: 1, method: "Nope" }))).toBe(-32601);
    expect(codeOf(() => checkRequest({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: 1 } }))).toBe(-32602);
    expect(codeOf(() => checkRequest({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { messageId: "m", parts: [{ text: "no kind" }] } } }))).toBe(-32602);
    expect(checkRequest({ jsonrpc: "2.0", id: "x", method: "tasks/get", params: { id: "t", extra: true } })).toEqual({ id: "x", method: "tasks/get", params: { id: "t", extra: true }, legacy: true });
    expect(checkRequest({ jsonrpc: "2.0", method: "GetExtendedAgentCard" })).toMatchObject({ id: null, legacy: false, params: {} });
  });

  it("checkVersion takes 1.0 and 0.3 (an empty header is 0.3, a patch is ignored), anything else is -32009", () => {
    expect(checkVersion(undefined)).toBe("0.3");
    expect(checkVersion(" 1.0 ")).toBe("1.0");
    expect(checkVersion("1.0.2")).toBe("1.0");
    expect(checkVersion("0.3")).toBe("0.3");
    for (const bad of ["2.0", "1", "v1.0", "1.0; drop"]) expect(codeOf(() => checkVersion(bad))).toBe(-32009);
  });

  it("executeRequestOf: text parts are the task, one data part the input, one ipfs url part the input's address", () => {
    const message = (parts: unknown[]) => Message.fromJSON({ messageId: "m", role: "ROLE_USER", parts });
    expect(executeRequestOf("a-0123abcd", message([{ text: "one" }, { text: "two" }, { data: { x: 1 } }]), { timeout_seconds: 30 })).toEqual({ agent_id: "a-0123abcd", task: "one\n\ntwo", input: { x: 1 }, timeout_seconds: 30 });
    const cid = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
    expect(executeRequestOf("a-0123abcd", message([{ text: "t" }, { url: cid }]), undefined)).toEqual({ agent_id: "a-0123abcd", task: "t", input_uri: cid });
    expect(codeOf(() => executeRequestOf("a", message([{ data: {} }]), undefined))).toBe(-32602);
    expect(codeOf(() => executeRequestOf("a", message([{ text: "t" }, { data: 5 }]), undefined))).toBe(-32602);
    expect(codeOf(() => executeRequestOf("a", message([{ text: "t" }, { url: "https://x.example" }]), undefined))).toBe(-32005);
    expect(codeOf(() => executeRequestOf("a", message([{ text: "x".repeat(32_769) }]), undefined))).toBe(-32602);
  });

  it("jsonRpcErrorOf keeps the transport's statuses and answers the protocol's errors with 200, the service's code and request id in ErrorInfo", () => {
    const refused = jsonRpcErrorOf(new ApiError("credential_not_found", "no rental", { onChainError: { contract: "Marketplace", error: "CredentialNotFound" } }), "req_1", "agents");
    expect(refused).toMatchObject({ status: 200, error: { code: -32000, data: [{ reason: "CREDENTIAL_NOT_FOUND", domain: "agents", metadata: { code: "credential_not_found", status: "403", request_id: "req_1", on_chain_error: "Marketplace.CredentialNotFound" } }] } });
    expect(jsonRpcErrorOf(new ApiError("rate_limit_exceeded", "slow down", { headers: { "Retry-After": "3" } }), "r", "agents")).toMatchObject({ status: 429, headers: { "Retry-After": "3" }, error: { code: -32000, data: [{ metadata: { retry_after: "3" } }] } });
    expect(jsonRpcErrorOf(new ApiError("payload_too_large", "big"), "r", "agents")).toMatchObject({ status: 413, error: { code: -32600, data: [{ domain: "a2a-protocol.org", reason: "INVALID_REQUEST" }] } });
    const internal = jsonRpcErrorOf(new Error("secret internals"), "r", "agents");
    expect(internal).toMatchObject({ status: 500, error: { code: -32603 } });
    expect(JSON.stringify(internal)).not.toContain("secret internals");
  });
});
