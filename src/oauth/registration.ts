// The bounds of a client registration (RFC 7591), checked before the library reads it: a registration is
// a record stored for anyone who asks, so its size is bounded, as is what one address may hold
// (client.store.ts). OAuth 2.1's rule on redirect URIs (resources.ts) is checked here too. What is out of
// bounds is answered as RFC 7591 §3.2.2 says: 400 with `invalid_client_metadata` or `invalid_redirect_uri`.
import { redirectUriProblem } from "./resources.ts";
import { InvalidClientMetadataError, InvalidRedirectUriError } from "./errors.ts";

/** The largest registration request body, in bytes. */
export const MAX_REGISTRATION_BYTES = 8 * 1024;
/** The most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;
/** The longest redirect URI, or any other URL of the metadata. */
export const MAX_URI_LENGTH = 2048;
/** The longest client name. */
export const MAX_CLIENT_NAME_LENGTH = 200;
/** The most entries of any other list of the metadata (grant types, contacts, …). */
export const MAX_LIST_LENGTH = 10;

export type RegistrationProblem = InvalidClientMetadataError | InvalidRedirectUriError;

const problem = (error: "invalid_client_metadata" | "invalid_redirect_uri", description: string): RegistrationProblem =>
  error === "invalid_redirect_uri" ? new InvalidRedirectUriError(description) : new InvalidClientMetadataError(description);

/** What is wrong with a registration's body, or null when it is within bounds (the library checks the
 * rest of RFC 7591). */
export function registrationProblem(text: string): RegistrationProblem | null {
  if (Buffer.byteLength(text) > MAX_REGISTRATION_BYTES) return problem("invalid_client_metadata", `The client metadata is larger than ${MAX_REGISTRATION_BYTES} bytes.`);
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return problem("invalid_client_metadata", "The client metadata is not valid JSON.");
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return problem("invalid_client_metadata", "The client metadata must be a JSON object.");
  const fields = metadata as Record<string, unknown>;
  const uris = fields.redirect_uris;
  if (Array.isArray(uris)) {
    if (uris.length > MAX_REDIRECT_URIS) return problem("invalid_client_metadata", `redirect_uris lists ${uris.length} URIs; at most ${MAX_REDIRECT_URIS} are accepted.`);
    for (const uri of uris) {
      if (typeof uri !== "string") continue; // the library refuses it
      if (uri.length > MAX_URI_LENGTH) return problem("invalid_redirect_uri", `A redirect URI is longer than ${MAX_URI_LENGTH} characters.`);
      const wrong = redirectUriProblem(uri);
      if (wrong) return problem("invalid_redirect_uri", wrong);
    }
  }
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") {
      const limit = name === "client_name" ? MAX_CLIENT_NAME_LENGTH : MAX_URI_LENGTH;
      if (value.length > limit) return problem("invalid_client_metadata", `${name} is longer than ${limit} characters.`);
    } else if (Array.isArray(value) && name !== "redirect_uris") {
      if (value.length > MAX_LIST_LENGTH) return problem("invalid_client_metadata", `${name} lists ${value.length} entries; at most ${MAX_LIST_LENGTH} are accepted.`);
      if (value.some((entry) => typeof entry === "string" && entry.length > MAX_URI_LENGTH)) return problem("invalid_client_metadata", `An entry of ${name} is longer than ${MAX_URI_LENGTH} characters.`);
    }
  }
  return null;
}
