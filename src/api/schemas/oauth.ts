// Schemas shared by the OAuth routes: the protected resource metadata (RFC 9728), a sign-in request as
// the consent page shows it, and a connected app.
import { z } from "@hono/zod-openapi";
import { OAUTH_SCOPES } from "../../oauth/scopes.ts";
import { SpendLimitSchema } from "./spend.ts";

export const OAuthScopeSchema = z.enum(OAUTH_SCOPES).openapi("OAuthScope", {
  description: "tasks:run runs tasks on the rented agents (and reads those runs); credentials:read reads the rentals; listings:read reads the catalogue.",
});

export const ProtectedResourceMetadataSchema = z
  .object({
    resource: z.string().openapi({ description: "The resource's identifier: the RFC 8707 `resource` an app asks a token for" }),
    authorization_servers: z.array(z.string()).openapi({ description: "The issuer of the service's authorization server" }),
    scopes_supported: z.array(OAuthScopeSchema),
    bearer_methods_supported: z.array(z.literal("header")).openapi({ description: "Access tokens go in the Authorization header only" }),
    resource_name: z.string(),
    resource_documentation: z.string(),
  })
  .openapi("ProtectedResourceMetadata", { description: "OAuth 2.0 Protected Resource Metadata (RFC 9728)" });

export const RequestIdParamSchema = z.object({
  request_id: z.string().openapi({ description: "The sign-in request's id, from the dashboard's /connect?request=… link" }),
});

export const ConsentRequestSchema = z
  .object({
    request_id: z.string(),
    client: z.object({
      client_id: z.string().openapi({ description: "The app's client id: an https URL for an app identified by its metadata document, an opaque id for a registered one" }),
      name: z.string().nullable().openapi({ description: "The name the app gives itself (client_name); unverified" }),
      kind: z.enum(["metadata_document", "registered"]).openapi({ description: "metadata_document: the client id is the URL of its metadata document, fetched from the app's own host; registered: the app registered itself (RFC 7591), anyone can claim any name" }),
      redirect_host: z.string().openapi({ description: "Where the browser goes back to after the decision: the app's redirect host" }),
      client_uri: z.string().nullable(),
      logo_uri: z.string().nullable(),
    }),
    scopes: z.array(z.object({ scope: OAuthScopeSchema, description: z.string() })).openapi({ description: "What the app asks to do, in words" }),
    resources: z.array(z.string()).openapi({ description: "The resources its tokens will open (the service's base URL opens the MCP endpoint, the A2A agents and the REST routes of its scopes)" }),
    expires_at: z.string().openapi({ description: "When the request expires (ISO 8601)" }),
    proposed_spend_limits: z
      .array(z.object({ currency: z.string(), period: z.enum(["day", "month", "total"]), amount: z.string() }))
      .openapi({ description: "The spending limit the app proposes for itself (its authorization parameter `spend_limit=<currency>:<wei>:<period>`); the person sets the limit on approval" }),
  })
  .openapi("OAuthConsentRequest", { description: "An app's sign-in request awaiting the person's decision" });

export const DecisionSchema = z
  .object({ redirect_to: z.string().openapi({ description: "Where to send the browser now: the authorization server, which sends it on to the app" }) })
  .openapi("OAuthDecision");

export const ConnectedAppSchema = z
  .object({
    app_id: z.string().openapi({ description: "The approval's id; DELETE /v1/oauth/apps/{app_id} revokes it" }),
    client_id: z.string(),
    name: z.string().nullable(),
    kind: z.enum(["metadata_document", "registered"]),
    redirect_host: z.string().nullable(),
    scopes: z.array(OAuthScopeSchema),
    resources: z.array(z.string()),
    approved_at: z.string(),
    expires_at: z.string().openapi({ description: "When the approval lapses and the app must ask again" }),
    last_used_at: z.string().nullable().openapi({ description: "The last request made with one of its access tokens" }),
    spend_limits: z.array(SpendLimitSchema).openapi({ description: "What the app may spend on per-task runs, per period, with this period's spending; [] when unlimited" }),
  })
  .openapi("ConnectedApp");
