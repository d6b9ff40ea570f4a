// Every command, in the order `agentrent help` lists them.
import type { Command } from "./cli.ts";
import { accountCommands } from "./commands/account.ts";
import { creatorCommands } from "./commands/creator.ts";
import { renterCommands } from "./commands/renter.ts";
import { reviewCommands } from "./commands/review.ts";
import { completionCommand } from "./completion.ts";

export const COMMANDS: Command[] = [...accountCommands, ...renterCommands, ...creatorCommands, ...reviewCommands, completionCommand(() => COMMANDS)];
