// Creator applications (beta): a wallet applies with a display name; the protocol authority approves
// or rejects it with a reason; only approved creators may register agents. A rejected creator may
// apply again.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { CreatorAlreadyApprovedError, CreatorNotFoundError, getCreatorProfile, listCreatorProfiles, putCreatorApplication, setCreatorReview, type CreatorProfile } from "./creator.store.ts";
import { ApiError } from "../errors.ts";
import type { ReviewStatus } from "@agent-rental/core/vocabulary";

// The record is the store's; the domain speaks of it under the same name.
export type { CreatorProfile } from "./creator.store.ts";

export async function getCreator(tables: Tables, wallet: string): Promise<CreatorProfile | null> {
  return getCreatorProfile(tables, wallet);
}

/** Applies (or applies again after a rejection). An approved creator's application stands. */
export async function applyAsCreator(tables: Tables, wallet: string, displayName: string): Promise<CreatorProfile> {
  const name = displayName.trim();
  if (!/^[^\u0000-\u001f\u007f]{2,64}$/.test(name)) throw new ApiError("invalid_request", "display_name must be 2 to 64 printable characters.");
  try {
    await putCreatorApplication(tables, wallet, name, new Date().toISOString());
  } catch (error) {
    if (error instanceof CreatorAlreadyApprovedError) return error.profile;
    throw error;
  }
  return (await getCreatorProfile(tables, wallet))!;
}

export async function listCreatorApplications(tables: Tables, status: ReviewStatus): Promise<CreatorProfile[]> {
  return listCreatorProfiles(tables, status);
}

export async function reviewCreator(tables: Tables, wallet: string, decision: "approve" | "reject", reason: string | undefined): Promise<CreatorProfile> {
  if (decision === "reject" && !reason?.trim()) throw new ApiError("invalid_request", "A rejection needs a reason the creator can read.");
  const status: ReviewStatus = decision === "approve" ? "approved" : "rejected";
  try {
    await setCreatorReview(tables, wallet, status, reason?.trim() || null, new Date().toISOString());
  } catch (error) {
    if (error instanceof CreatorNotFoundError) throw new ApiError("not_found", `No creator application from ${wallet}.`);
    throw error;
  }
  return (await getCreatorProfile(tables, wallet))!;
}

/** Registration's gate: an approved creator, or a 403 that says what to do. */
export async function requireApprovedCreator(tables: Tables, wallet: string): Promise<CreatorProfile> {
  const profile = await getCreator(tables, wallet);
  if (profile?.status === "approved") return profile;
  const what =
    !profile
      ? "Apply first with POST /v1/creators."
      : profile.status === "pending"
        ? "Your creator application is pending review."
        : `Your creator application was rejected: ${profile.reason ?? "no reason given"}. You may apply again.`;
  throw new ApiError("creator_not_approved", `During the beta only reviewed creators register agents. ${what}`);
}
