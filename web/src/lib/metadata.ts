// A listing's public metadata (its schemas, tools, timeout), read from the API's gateway to
// content-addressed storage: ipfs://<cid> → GET /v1/metadata/<cid> (public).
import { usePublicQuery } from "../api/hooks.ts";
import type { ListingMetadata } from "@agent-rental/sdk";

export function metadataPath(uri: string | undefined | null): string | null {
  const m = uri ? /^ipfs:\/\/([a-z0-9]+)$/i.exec(uri) : null;
  return m ? `/v1/metadata/${m[1]}` : null;
}

export function useListingMetadata(uri: string | undefined | null) {
  return usePublicQuery<ListingMetadata>(metadataPath(uri));
}
