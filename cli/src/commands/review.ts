// Review commands (beta) for the protocol authority's wallet: creator applications and listings.
import { authenticatedApi } from "../api.ts";
import { oneOf, requireFlag, stringFlag, type Command, type CommandContext, type Flag } from "../cli.ts";
import { usageError } from "../errors.ts";
import { resolveListing } from "../listing-ref.ts";
import { REVIEW_STATUSES } from "@agent-rental/core/vocabulary";

interface Profile {
  wallet: string;
  display_name: string;
  status: string;
  reason: string | null;
  applied_at: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const REASON: Flag = { type: "string", value: "<text>", description: "the reason the creator reads" };
const WALLET_ARGUMENT = "<wallet>  the applicant's wallet address (0x + 40 hex)";
const LISTING_ARGUMENT = "<listing>  the agent id (<name>-<8 hex>, also found in the review queue), the listing id (lst_…) or the on-chain id";

function wallet(value: string): string {
  if (!ADDRESS.test(value)) throw usageError(`${JSON.stringify(value)} is not a wallet address (0x + 40 hex).`);
  return value;
}

async function decideCreator(ctx: CommandContext, decision: "approve" | "reject") {
  const body: { decision: "approve" | "reject"; reason?: string } = { decision };
  if (decision === "reject") body.reason = requireFlag(ctx.flags, "reason", "the reason the creator will read");
  else if (stringFlag(ctx.flags, "reason")) body.reason = stringFlag(ctx.flags, "reason")!;
  const profile: Profile = await authenticatedApi(ctx.settings(), ctx.env).client.reviews.reviewCreator(wallet(ctx.args[0]!), body);
  ctx.out.result(profile, () => ctx.out.line(`${profile.display_name} (${profile.wallet}): ${profile.status}${profile.reason ? ` (${profile.reason})` : ""}.`));
}

async function decideListing(ctx: CommandContext, decision: "approve" | "reject") {
  const body: { decision: "approve" | "reject"; reason?: string } = { decision };
  if (decision === "reject") body.reason = requireFlag(ctx.flags, "reason", "the reason the creator will read");
  else if (stringFlag(ctx.flags, "reason")) body.reason = stringFlag(ctx.flags, "reason")!;
  const api = authenticatedApi(ctx.settings(), ctx.env);
  const ref = await resolveListing(ctx.args[0]!, api, async () => (await api.client.reviews.listings()).map((l) => l.listing_id));
  const result = await api.client.reviews.reviewListing(ref.listingId, body);
  ctx.out.result(result, () => ctx.out.line(`${result.listing_id}: ${result.review_status}${result.review_reason ? ` (${result.review_reason})` : ""}.`));
}

export const reviewCommands: Command[] = [
  {
    path: "review creators",
    summary: "Creator applications (authority)",
    usage: `[--status ${REVIEW_STATUSES.join("|")}]`,
    options: { status: { type: "string", value: "<status>", description: `${REVIEW_STATUSES.join(", ")} (default pending)` } },
    examples: ["agentrent review creators", "agentrent review creators --status rejected --json"],
    async run(ctx) {
      const status = oneOf(stringFlag(ctx.flags, "status"), REVIEW_STATUSES, "--status") ?? "pending";
      const applications: Profile[] = await authenticatedApi(ctx.settings(), ctx.env).client.reviews.creators(status);
      ctx.out.result({ applications }, () => {
        if (applications.length === 0) return ctx.out.line(`No ${status} applications.`);
        for (const a of applications) ctx.out.line(`${a.wallet}  ${a.display_name}  ${a.status}  applied ${a.applied_at}`);
      });
    },
  },
  {
    path: "review approve-creator",
    summary: "Approve a creator application (authority)",
    usage: "<wallet> [--reason <text>]",
    args: [1, 1],
    arguments: [WALLET_ARGUMENT],
    options: { reason: { ...REASON, description: "a note the creator reads (optional)" } },
    examples: ["agentrent review approve-creator 0x<40 hex>"],
    run: (ctx) => decideCreator(ctx, "approve"),
  },
  {
    path: "review reject-creator",
    summary: "Reject a creator application with a reason (authority)",
    usage: "<wallet> --reason <text>",
    args: [1, 1],
    arguments: [WALLET_ARGUMENT],
    options: { reason: { ...REASON, description: "why, for the creator to read (required)" } },
    examples: ['agentrent review reject-creator 0x<40 hex> --reason "No public profile yet"'],
    run: (ctx) => decideCreator(ctx, "reject"),
  },
  {
    path: "review listings",
    summary: "Listings awaiting review (authority)",
    usage: "",
    examples: ["agentrent review listings", "agentrent review listings --json"],
    async run(ctx) {
      const listings = await authenticatedApi(ctx.settings(), ctx.env).client.reviews.listings();
      ctx.out.result({ listings }, () => {
        if (listings.length === 0) return ctx.out.line("No listings awaiting review.");
        for (const l of listings) ctx.out.line(`${l.listing_id}  registered ${l.created_at}`);
      });
    },
  },
  {
    path: "review approve-listing",
    summary: "Approve a listing: it appears in search once listed on-chain (authority)",
    usage: "<listing> [--reason <text>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { reason: { ...REASON, description: "a note the creator reads (optional)" } },
    examples: ["agentrent review approve-listing clause-finder-1a2b3c4d"],
    run: (ctx) => decideListing(ctx, "approve"),
  },
  {
    path: "review reject-listing",
    summary: "Reject a listing with a reason (authority)",
    usage: "<listing> --reason <text>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { reason: { ...REASON, description: "why, for the creator to read (required)" } },
    examples: ['agentrent review reject-listing clause-finder-1a2b3c4d --reason "The sample outputs are empty"'],
    run: (ctx) => decideListing(ctx, "reject"),
  },
];
