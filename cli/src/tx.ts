// A contract write with progress: the hash as soon as the transaction is sent, then its confirmation.
import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { CommandContext } from "./cli.ts";
import type { ChainTarget, ContractCall, SentTransaction } from "./chain.ts";

export async function sendWithProgress(ctx: CommandContext, target: ChainTarget, account: PrivateKeyAccount, functionName: string, args: readonly unknown[], value?: bigint): Promise<SentTransaction> {
  const { sendTransaction } = await import("./chain.ts");
  return withProgress(ctx, functionName, (onSent) => sendTransaction(target, account, functionName, args, value, onSent));
}

/** The same for any contract's call (the ERC-8004 registries). */
export async function sendCallWithProgress(ctx: CommandContext, target: ChainTarget, account: PrivateKeyAccount, call: ContractCall): Promise<Awaited<ReturnType<typeof import("./chain.ts").sendContractTransaction>>> {
  const { sendContractTransaction } = await import("./chain.ts");
  return withProgress(ctx, call.functionName, (onSent) => sendContractTransaction(target, account, call, onSent));
}

async function withProgress<T extends SentTransaction>(ctx: CommandContext, functionName: string, send: (onSent: (hash: Hex) => void) => Promise<T>): Promise<T> {
  const tx = await ctx.out.progress(`simulating ${functionName}`, (update) =>
    send((hash) => {
      ctx.out.notice(`transaction ${hash} sent`);
      update(`waiting for the confirmation of ${hash}`);
    }),
  );
  ctx.out.notice(`transaction ${tx.hash} confirmed in block ${tx.blockNumber}`);
  return tx;
}
