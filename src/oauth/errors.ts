// OAuth's own errors, typed as the MCP SDK's authorization server types them: one class per code the
// service answers with itself, each with its HTTP status, written as OAuth's error object
// ({error, error_description}: RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1, RFC 8707 §2). The
// protocol endpoints (/oauth/*) answer these, never the service's envelope; the library's own answers
// use the same codes. Each route lists the codes it answers with (`oauthErrors` in its declaration).

/** Each OAuth error code the protocol endpoints answer with, and its HTTP status. */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  too_many_clients: 429,
  server_error: 500,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;
export type OAuthErrorStatus = (typeof OAUTH_ERROR_STATUS)[OAuthErrorCode];
export const OAUTH_ERROR_CODES = Object.keys(OAUTH_ERROR_STATUS) as OAuthErrorCode[];

/** OAuth's error object. */
export interface OAuthErrorObject {
  error: OAuthErrorCode;
  error_description: string;
}

export class OAuthError extends Error {
  readonly status: OAuthErrorStatus;
  constructor(
    readonly errorCode: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.status = OAUTH_ERROR_STATUS[errorCode];
  }

  toResponseObject(): OAuthErrorObject {
    return { error: this.errorCode, error_description: this.message };
  }

  /** The answer of a protocol endpoint: the error object, never cached. */
  toResponse(): Response {
    return new Response(JSON.stringify(this.toResponseObject()), { status: this.status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
  }
}

/** A request missing a parameter, repeating one, or malformed otherwise. */
export class InvalidRequestError extends OAuthError {
  constructor(message: string) {
    super("invalid_request", message);
  }
}

/** A grant type the token endpoint does not serve (it serves authorization_code and refresh_token). */
export class UnsupportedGrantTypeError extends OAuthError {
  constructor(message: string) {
    super("unsupported_grant_type", message);
  }
}

/** Client metadata out of bounds or not valid (RFC 7591 §3.2.2). */
export class InvalidClientMetadataError extends OAuthError {
  constructor(message: string) {
    super("invalid_client_metadata", message);
  }
}

/** A redirect URI not allowed (RFC 7591 §3.2.2; OAuth 2.1's rule on redirect URIs). */
export class InvalidRedirectUriError extends OAuthError {
  constructor(message: string) {
    super("invalid_redirect_uri", message);
  }
}

/** An address that holds too many clients no one has approved (decision 0102). */
export class TooManyClientsError extends OAuthError {
  constructor(message: string) {
    super("too_many_clients", message);
  }
}
