// Every command, in the order `agentrent help` lists them.
import type { Command } from "./cli.ts";
import { accountCommands } from "./commands/account.ts";
import { creatorCommands } from "./commands/creator.ts";
import { renterCommands } from "./commands/renter.ts";
import { reviewCommands } from "./commands/review.ts";
import { alertsCommands } from "./commands/alerts.ts";
import { erc8004CreatorCommands, erc8004RenterCommands } from "./commands/erc8004.ts";
import { completionCommand } from "./completion.ts";

export const COMMANDS: Command[] = [...accountCommands, ...renterCommands, ...erc8004RenterCommands, ...alertsCommands, ...creatorCommands, ...erc8004CreatorCommands, ...reviewCommands, completionCommand(() => COMMANDS)];
