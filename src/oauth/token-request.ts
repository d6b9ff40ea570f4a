// The token request (POST /oauth/token), one schema per grant type as the MCP SDK's authorization server
// reads it: RFC 6749 §4.1.3 with PKCE's code_verifier, and §6. The form is checked against its grant's
// schema before the library reads it, so a request it could never serve gets a typed OAuth error; what
// the values mean (the code, the verifier, the client) the library judges.
import { z } from "zod";
import { InvalidRequestError, UnsupportedGrantTypeError } from "./errors.ts";

const clientFields = {
  client_id: z.string().min(1).optional().describe("A public client's id (client_secret_basic sends it in the Authorization header instead)"),
  client_secret: z.string().optional().describe("client_secret_post only"),
  resource: z.string().min(1).optional().describe("RFC 8707: the resource the token is for (the one approved when none)"),
};

export const AuthorizationCodeGrantSchema = z.object({
  grant_type: z.literal("authorization_code"),
  code: z.string().min(1).describe("The code the app received at its redirect URI (one use, one minute)"),
  code_verifier: z.string().min(1).describe("PKCE: the verifier of the S256 challenge sent to /oauth/authorize"),
  redirect_uri: z.string().min(1).describe("The redirect URI the authorization used"),
  ...clientFields,
});

export const RefreshTokenGrantSchema = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: z.string().min(1).describe("The latest refresh token (each is spent by its use)"),
  scope: z.string().optional().describe("A narrower scope than the one approved"),
  ...clientFields,
});

/** The grant types the token endpoint serves, each with its schema. */
export const TOKEN_GRANTS = { authorization_code: AuthorizationCodeGrantSchema, refresh_token: RefreshTokenGrantSchema } as const;

export type TokenRequest = z.infer<typeof AuthorizationCodeGrantSchema> | z.infer<typeof RefreshTokenGrantSchema>;

/** The form of a token request checked against its grant's schema; throws the OAuth error to answer. */
export function readTokenRequest(form: URLSearchParams): TokenRequest {
  const grantType = form.getAll("grant_type");
  if (grantType.length !== 1) throw new InvalidRequestError(grantType.length ? "grant_type is given more than once." : "grant_type is missing.");
  const schema = TOKEN_GRANTS[grantType[0] as keyof typeof TOKEN_GRANTS];
  if (!Object.hasOwn(TOKEN_GRANTS, grantType[0]!) || !schema) throw new UnsupportedGrantTypeError(`grant_type ${JSON.stringify(grantType[0])} is not served: use authorization_code or refresh_token.`);
  const fields: Record<string, string> = {};
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    if (values.length > 1) throw new InvalidRequestError(`${name} is given more than once.`);
    fields[name] = values[0]!;
  }
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidRequestError(`${issue.path.join(".") || "the request"}: ${fields[String(issue.path[0])] === undefined ? "missing" : issue.message}.`);
  }
  return parsed.data;
}

/** The token request's body in the API reference: the grants' schemas, one per grant type. */
export function tokenRequestJsonSchema(): Record<string, unknown> {
  return {
    oneOf: Object.entries(TOKEN_GRANTS).map(([grant, schema]) => {
      const { $schema: _, ...json } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
      return { ...json, title: grant };
    }),
  };
}
