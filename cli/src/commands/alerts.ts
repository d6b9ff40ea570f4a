// Alert commands: the wallet's alert settings (webhook, low-balance threshold) and the alerts raised (at
// 80% and 100% of a key's or app's spending limit or of an on-chain charge cap, and on a low balance).
import type { Alert, AlertSettings } from "@agent-rental/sdk";
import { authenticatedApi } from "../api.ts";
import { intFlag, stringFlag, type Command, type CommandContext } from "../cli.ts";
import { usageError } from "../errors.ts";

function printSettings(ctx: CommandContext, settings: AlertSettings): void {
  ctx.out.table([
    ["webhook", settings.webhook_url ?? "(none: dashboard notices only)"],
    ["low balance", settings.low_balance_runs === null ? "(no alert)" : `below ${settings.low_balance_runs} runs`],
    ["updated", settings.updated_at ?? "(never set)"],
  ]);
}

function describeAlert(alert: Alert): string {
  const d = alert.data as Record<string, unknown>;
  const what =
    alert.type === "low_balance"
      ? `listing ${String(d.listing_id)}: ${String(d.runs_left)} runs left (below ${String(d.threshold_runs)})`
      : alert.type === "charge_cap"
        ? `charge cap on listing ${String(d.listing_id)}: ${String(d.threshold)}% (${String(d.spent)} of ${String(d.amount)} wei this period)`
        : `${String(d.scope)} ${String(d.id)} ${String(d.period)} limit: ${String(d.threshold)}% (${String(d.spent)} of ${String(d.amount)} wei)`;
  return `${alert.created_at}  ${alert.type}  ${what}  ${alert.delivery}${alert.attempts > 0 ? ` after ${alert.attempts} attempt(s)` : ""}`;
}

export const alertsCommands: Command[] = [
  {
    path: "alerts show",
    summary: "Show where the wallet's alerts go and when a low balance alerts",
    usage: "",
    examples: ["agentrent alerts show"],
    async run(ctx) {
      const settings = await authenticatedApi(ctx.settings(), ctx.env).client.alerts.getSettings();
      ctx.out.result(settings, () => printSettings(ctx, settings));
    },
  },
  {
    path: "alerts set",
    summary: "Set the alerts' webhook and the low-balance threshold (what is not given is kept)",
    usage: "[--webhook <https url>|none] [--low-balance-runs <n>|none] [--rotate-secret]",
    options: {
      webhook: { type: "string", value: "<url>", description: "where alerts are delivered, signed (https); none: dashboard notices only" },
      "low-balance-runs": { type: "string", value: "<n>", description: "alert when a per-task balance falls below this many runs; none: never" },
      "rotate-secret": { type: "boolean", description: "make a new signing secret (shown once)" },
    },
    notes: ["Needs a wallet sign-in (`agentrent login`), not an API key.", "The first settings and --rotate-secret print the webhook's signing secret (whsec_…) once: store it where the receiver verifies."],
    examples: ["agentrent alerts set --webhook https://example.com/hooks/agentrent --low-balance-runs 5", "agentrent alerts set --webhook none", "agentrent alerts set --rotate-secret"],
    async run(ctx) {
      const webhook = stringFlag(ctx.flags, "webhook");
      const runs = stringFlag(ctx.flags, "low-balance-runs");
      const rotate = ctx.flags["rotate-secret"] === true;
      if (webhook === undefined && runs === undefined && !rotate) throw usageError("Give --webhook, --low-balance-runs or --rotate-secret (see `agentrent help alerts set`).");
      const client = authenticatedApi(ctx.settings(), ctx.env).client;
      const current = await client.alerts.getSettings();
      const settings = await client.alerts.setSettings({
        webhookUrl: webhook === undefined ? current.webhook_url : webhook === "none" ? null : webhook,
        lowBalanceRuns: runs === undefined ? current.low_balance_runs : runs === "none" ? null : (intFlag(ctx.flags, "low-balance-runs", 1, 1_000_000) ?? null),
        rotateSecret: rotate,
      });
      ctx.out.result(settings, () => {
        printSettings(ctx, settings);
        if (settings.webhook_secret) {
          ctx.out.line(settings.webhook_secret);
          ctx.out.notice("The webhook's signing secret above is shown only now: keep it where your receiver verifies alerts.");
        }
      });
    },
  },
  {
    path: "alerts list",
    summary: "List the newest alerts and their delivery",
    usage: "[--limit <n>]",
    options: { limit: { type: "string", value: "<n>", description: "how many (1 to 100; default 20)" } },
    examples: ["agentrent alerts list", "agentrent alerts list --limit 100 --json"],
    async run(ctx) {
      const limit = intFlag(ctx.flags, "limit", 1, 100);
      const alerts = await authenticatedApi(ctx.settings(), ctx.env).client.alerts.list(limit === undefined ? {} : { limit });
      ctx.out.result({ alerts }, () => {
        if (alerts.length === 0) return ctx.out.line("No alerts.");
        for (const alert of alerts) ctx.out.line(describeAlert(alert));
      });
    },
  },
];
