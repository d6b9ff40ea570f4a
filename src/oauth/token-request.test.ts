// The token request's schemas per grant type: what is refused before the authorization server reads it.
import { describe, expect, it } from "vitest";
import { readTokenRequest, tokenRequestJsonSchema } from "./token-request.ts";
import { OAuthError } from "./errors.ts";

const refusal = (form: string): [string, number] | undefined => {
  try {
    readTokenRequest(new URLSearchParams(form));
    return undefined;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return [error.errorCode, error.status];
  }
};

describe("the token request", () => {
  it("reads each grant type's fields", () => {
    expect(readTokenRequest(new URLSearchParams("grant_type=authorization_code&code=c&code_verifier=v&redirect_uri=https://app.example/cb&client_id=x"))).toEqual({
      grant_type: "authorization_code",
      code: "c",
      code_verifier: "v",
      redirect_uri: "https://app.example/cb",
      client_id: "x",
    });
    expect(readTokenRequest(new URLSearchParams("grant_type=refresh_token&refresh_token=r&scope=tasks:run"))).toMatchObject({ grant_type: "refresh_token", refresh_token: "r", scope: "tasks:run" });
  });

  it("refuses a missing, repeated or unknown grant type, and a grant's missing or repeated field", () => {
    expect(refusal("code=c")).toEqual(["invalid_request", 400]);
    expect(refusal("grant_type=refresh_token&grant_type=refresh_token&refresh_token=r")).toEqual(["invalid_request", 400]);
    expect(refusal("grant_type=client_credentials")).toEqual(["unsupported_grant_type", 400]);
    expect(refusal("grant_type=toString")).toEqual(["unsupported_grant_type", 400]);
    expect(refusal("grant_type=authorization_code&code=c&redirect_uri=https://app.example/cb")).toEqual(["invalid_request", 400]);
    expect(refusal("grant_type=refresh_token")).toEqual(["invalid_request", 400]);
    expect(refusal("grant_type=refresh_token&refresh_token=a&refresh_token=b")).toEqual(["invalid_request", 400]);
  });

  it("says which field is missing", () => {
    try {
      readTokenRequest(new URLSearchParams("grant_type=authorization_code&code=c&redirect_uri=u"));
    } catch (error) {
      expect((error as OAuthError).toResponseObject()).toEqual({ error: "invalid_request", error_description: "code_verifier: missing." });
    }
    expect.assertions(1);
  });

  it("documents one schema per grant type", () => {
    const schema = tokenRequestJsonSchema() as { oneOf: { title: string; required: string[] }[] };
    expect(schema.oneOf.map((s) => [s.title, s.required])).toEqual([
      ["authorization_code", ["grant_type", "code", "code_verifier", "redirect_uri"]],
      ["refresh_token", ["grant_type", "refresh_token"]],
    ]);
  });
});
