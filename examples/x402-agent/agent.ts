// An agent that holds only a funded wallet rents another agent on its own, with no API key, sign-in or
// dashboard: it finds a listing in the ERC-8004 Identity Registry (discover.ts), pays one run by x402 over
// HTTP with the official client (@x402/fetch, @x402/evm's ExactEvmScheme, a viem account), prints the
// output with the PAYMENT-RESPONSE and the run's receipt, and rates the run on the ERC-8004 Reputation
// Registry, feedback that counts as verified because its file carries the run's receipt (feedback.ts).
//
//   AGENT_PRIVATE_KEY=0x… node --conditions=@agent-rental/source --import tsx examples/x402-agent/agent.ts .local/stack.json
import { createPublicClient, erc20Abi, formatUnits, http, parseUnits, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { readSettings } from "./settings.ts";
import { discover } from "./discover.ts";
import { rate } from "./feedback.ts";

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2), process.env);
  const account = privateKeyToAccount(settings.privateKey);
  const client = createPublicClient({ transport: http(settings.rpcUrl) }) as PublicClient;
  console.log(`Wallet ${account.address} on chain ${await client.getChainId()}`);

  // 1. Discover: registry → registration file (x402Support) → A2A card (the x402 extension).
  const found = await discover(client, settings);
  const { terms } = found;
  const [symbol, decimals] = await Promise.all([
    client.readContract({ address: terms.asset, abi: erc20Abi, functionName: "symbol" }),
    client.readContract({ address: terms.asset, abi: erc20Abi, functionName: "decimals" }),
  ]);
  console.log(`Found agent ${found.agentId}: ${found.file.name} (x402Support: ${found.file.x402Support}), card ${found.card.name}`);
  console.log(`It asks ${formatUnits(BigInt(terms.amount), decimals)} ${symbol} a run by x402 (${terms.network}, asset ${terms.asset}, payTo ${terms.payTo})`);

  // 2. Pay by x402. The client's default policy pays only the library's built-in tokens: this agent
  // allows this token on this chain, up to its own maximum per payment.
  const maxPerPayment = parseUnits(settings.maxPayment, decimals);
  if (BigInt(terms.amount) > maxPerPayment) throw new Error(`The run costs more than this agent pays (${settings.maxPayment} ${symbol}).`);
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: terms.network, client: new ExactEvmScheme(toClientEvmSigner(account)) }],
    spendControls: { allowedAssets: [{ network: terms.network, asset: terms.asset, maxAmountPerPayment: maxPerPayment.toString() }] },
  });
  const balanceOf = () => client.readContract({ address: terms.asset, abi: erc20Abi, functionName: "balanceOf", args: [account.address] });
  const before = await balanceOf();
  const answer = await pay(`${found.apiBase}/v1/execute`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: found.serviceAgentId, task: "Write a cold email to this prospect.", input: { prospect: "Dana Reyes, Head of Finance at Acme Logistics" } }),
    signal: AbortSignal.timeout(180_000),
  });
  const run = (await answer.json()) as { run_id?: string; status?: string; output?: unknown; cost_wei?: number; error?: unknown };
  if (answer.status !== 200 || run.status !== "completed" || !run.run_id) throw new Error(`The paid run did not complete (HTTP ${answer.status}): ${JSON.stringify(run)}`);
  const header = answer.headers.get("payment-response");
  if (!header) throw new Error("The answer carries no PAYMENT-RESPONSE.");
  const settled = decodePaymentResponseHeader(header);
  const after = await balanceOf();
  console.log(`Run ${run.run_id}: ${run.status}`);
  console.log(`Output: ${typeof run.output === "string" ? run.output : JSON.stringify(run.output)}`);
  console.log(`PAYMENT-RESPONSE: ${JSON.stringify(settled)}`);
  console.log(`Paid: ${formatUnits(before - after, decimals)} ${symbol} (${before - after} units)`);

  // 3. Rate the run: verified feedback, counted before and after from the chain and the files.
  const rated = await rate(client, account, settings, found, run.run_id);
  console.log(`Receipt: ${JSON.stringify(rated.receipt)}`);
  console.log(`Feedback: ${rated.txHash}`);
  console.log(`Verified feedback of the listing: ${rated.verifiedBefore} → ${rated.verifiedAfter}`);
  console.log(JSON.stringify({ result: { agent_id: found.agentId.toString(), listing: found.file.name, run_id: run.run_id, output: run.output, payment_response: settled, paid_units: (before - after).toString(), receipt: rated.receipt, feedback_tx: rated.txHash, verified_before: rated.verifiedBefore, verified_after: rated.verifiedAfter } }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
