// A contract write with progress: the hash as soon as the transaction is sent, then its confirmation.
import type { PrivateKeyAccount } from "viem/accounts";
import type { CommandContext } from "./cli.ts";
import type { ChainTarget, SentTransaction } from "./chain.ts";

export async function sendWithProgress(ctx: CommandContext, target: ChainTarget, account: PrivateKeyAccount, functionName: string, args: readonly unknown[], value?: bigint): Promise<SentTransaction> {
  const { sendTransaction } = await import("./chain.ts");
  const tx = await ctx.out.progress(`simulating ${functionName}`, (update) =>
    sendTransaction(target, account, functionName, args, value, (hash) => {
      ctx.out.notice(`transaction ${hash} sent`);
      update(`waiting for the confirmation of ${hash}`);
    }),
  );
  ctx.out.notice(`transaction ${tx.hash} confirmed in block ${tx.blockNumber}`);
  return tx;
}
