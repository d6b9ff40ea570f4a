// Register an agent: the manifest in an editor validated live by the server's own validator (same
// rules, same messages), submitted only when valid; the job followed to its end; then the listing
// created on-chain through the wallet, and its review followed. The listing's currency is chosen before
// submitting: ETH (the Marketplace) or a token of the allowlist, picked from GET /v1/currencies or
// given by address (registered with market=token and listed on the TokenMarketplace, its price in the
// token).
import { useMemo, useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { getAddress, isAddress, parseEther, parseUnits, type Abi, type Address } from "viem";
import { useReadContracts } from "wagmi";
import { validateManifest } from "@agent-rental/core/manifest";
import { useClient, usePublicQuery } from "../../api/hooks.ts";
import type { CreatorAgent, Currencies, Job, RentalModel } from "@agent-rental/sdk";
import { ACCESS_TYPE, tokenMarketplaceAbi } from "../../chain/abi.ts";
import { useContractFlow, useTransactionFlow } from "../../chain/useContractFlow.ts";
import { FlowStatus } from "../../chain/FlowStatus.tsx";
import { useDashboardConfig } from "../../lib/context.tsx";
import { ErrorNote, StatusBadge } from "../../ui/notices.tsx";
import { RentalModelOptions } from "../../ui/RentalModelOptions.tsx";

const TEMPLATE = {
  name: "my-agent",
  category: "research",
  description: "What the agent delivers, in one or two sentences.",
  model: { provider: "provider_a", model: "gpt-4o-mini" },
  system_prompt: "You are ...",
  input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], examples: [{ findings: ["..."] }] },
  timeout_seconds: 60,
};

export function RegisterAgent({ onRegistered, agents }: { onRegistered: () => void; agents: CreatorAgent[] }) {
  const client = useClient();
  const config = useDashboardConfig();
  const [text, setText] = useState(() => JSON.stringify(TEMPLATE, null, 2));
  const [jobId, setJobId] = useState<string | null>(null);
  // The tokens listings may be priced in here (the allowlist the service knows), by symbol.
  const currencies = usePublicQuery<Currencies>(config.tokenMarketplace ? "/v1/currencies" : null);
  const tokens = (currencies.data?.currencies ?? []).filter((c) => c.address !== null);
  // "eth", a token's address from the list, or "other": a token given by its address.
  const [currency, setCurrency] = useState("eth");
  const [tokenText, setTokenText] = useState("");
  const tokenChosen = currency !== "eth";
  const tokenAddress = currency === "other" ? tokenText.trim() : currency;
  const token = tokenChosen && isAddress(tokenAddress) ? getAddress(tokenAddress) : null;
  // The currency the job was submitted for: the listing id (and so the contract) depends on it.
  const [submittedToken, setSubmittedToken] = useState<Address | null>(null);

  const validation = useMemo(() => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { ok: false as const, errors: [{ pointer: "", code: "invalid_json", message: `Not valid JSON: ${(error as Error).message}` }] };
    }
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > 65_536) return { ok: false as const, errors: [{ pointer: "", code: "too_large", message: `The manifest is ${bytes} bytes; the maximum is 65536 bytes (64 KB).` }] };
    const result = validateManifest(parsed, { allowPrivateHosts: config.allowPrivateAgentHosts });
    return result.ok ? { ok: true as const, errors: [] } : { ok: false as const, errors: result.errors };
  }, [text, config.allowPrivateAgentHosts]);

  const submit = useMutation({
    mutationFn: () => client.agents.register(text, token ? { market: "token" } : {}),
    onSuccess: (r) => {
      setSubmittedToken(token);
      setJobId(r.job_id);
    },
  });
  const job = useQuery({
    queryKey: ["auth", "job", jobId],
    queryFn: ({ signal }) => client.jobs.get(jobId!, { signal }),
    enabled: Boolean(jobId),
    refetchInterval: (q) => (q.state.data?.status === "queued" || !q.state.data ? 800 : false),
  });

  return (
    <section className="card stack" aria-labelledby="register">
      <h2 id="register">Register an agent</h2>
      <p className="muted small">
        The manifest describes the agent: model, instructions or endpoint, tools, and its input and output schemas. The prompt and endpoint stay private; renters see the name, description and schemas.
      </p>
      <div className="field">
        <label htmlFor="manifest">Manifest (JSON)</label>
        <textarea id="manifest" className="code" spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={!validation.ok} aria-describedby="manifest-problems" />
      </div>
      <div id="manifest-problems" role="status" aria-live="polite">
        {validation.ok ? (
          <div className="notice notice-ok">The manifest is valid.</div>
        ) : (
          <div className="notice notice-error">
            <strong>
              {validation.errors.length} {validation.errors.length === 1 ? "problem" : "problems"} to fix before submitting:
            </strong>
            <ul data-testid="manifest-errors" style={{ margin: ".3rem 0 0", paddingLeft: "1.2rem" }}>
              {validation.errors.map((e, i) => (
                <li key={i}>
                  {e.pointer ? <code>{e.pointer}</code> : null} {e.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <div className="row" style={{ alignItems: "flex-end" }}>
        <div className="field">
          <label htmlFor="new-currency">Listing currency</label>
          <select id="new-currency" value={currency} onChange={(e) => setCurrency(e.target.value)} disabled={!config.tokenMarketplace}>
            <option value="eth">ETH</option>
            {tokens.map((t) => (
              <option key={t.address} value={t.address!}>
                {t.symbol}
                {t.name ? ` (${t.name})` : ""}
              </option>
            ))}
            <option value="other">Another token of the allowlist, by address</option>
          </select>
        </div>
        {currency === "other" ? (
          <div className="field">
            <label htmlFor="new-token">Token address</label>
            <input id="new-token" className="code" spellCheck={false} placeholder="0x…" value={tokenText} onChange={(e) => setTokenText(e.target.value)} aria-invalid={token === null} />
          </div>
        ) : null}
      </div>
      {tokenChosen && token === null ? <span className="hint">Enter the token's address (0x and 40 hex digits); the token marketplace takes only the tokens its authority allows.</span> : null}
      {submit.error ? <ErrorNote error={submit.error} title="Not submitted" /> : null}
      <div>
        <button className="btn btn-primary" disabled={!validation.ok || submit.isPending || (tokenChosen && token === null)} onClick={() => submit.mutate()}>
          Submit for registration
        </button>
      </div>
      {jobId ? (
        <div className="stack" role="status" aria-live="polite">
          <p>
            Job <code>{jobId}</code>: {job.data ? <StatusBadge status={job.data.status} /> : "…"}
          </p>
          {job.error ? <ErrorNote error={job.error} /> : null}
          {job.data?.status === "failed" ? (
            <div className="notice notice-error">
              {job.data.error?.message}
              <ul>
                {job.data.error?.details?.map((d, i) => (
                  <li key={i}>
                    <code>{d.pointer}</code> {d.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {job.data?.status === "completed" && job.data.result ? submittedToken ? (
            <CreateTokenListing result={job.data.result} token={submittedToken} onCreated={onRegistered} existing={agents.find((a) => a.listing_id === job.data!.result!.listing_id)} />
          ) : (
            <CreateListing result={job.data.result} onCreated={onRegistered} existing={agents.find((a) => a.listing_id === job.data!.result!.listing_id)} />
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** A new listing's rental model and its price, typed in `unit` (ETH, or the token's symbol). */
function ListingTermsFields({ idPrefix, model, onModel, price, onPrice, unit, invalid }: { idPrefix: string; model: RentalModel; onModel: (model: RentalModel) => void; price: string; onPrice: (price: string) => void; unit: string; invalid: boolean }) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-model`}>Rental model</label>
        <select id={`${idPrefix}-model`} value={model} onChange={(e) => onModel(e.target.value as RentalModel)}>
          <RentalModelOptions />
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-price`}>Price ({unit})</label>
        <input id={`${idPrefix}-price`} inputMode="decimal" value={price} onChange={(e) => onPrice(e.target.value)} aria-invalid={invalid} />
      </div>
    </>
  );
}

function CreateListing({ result, onCreated, existing }: { result: NonNullable<Job["result"]>; onCreated: () => void; existing: CreatorAgent | undefined }) {
  const [model, setModel] = useState<RentalModel>("per_query");
  const [price, setPrice] = useState("0.001");
  const flow = useContractFlow();
  let wei: bigint | null = null;
  try {
    wei = /^\d+(\.\d{1,18})?$/.test(price.trim()) ? parseEther(price.trim()) : null;
  } catch {
    wei = null;
  }
  return (
    <div className="stack">
      <div className="notice notice-ok">
        Registered as <code>{result.agent_id}</code>. Now create its listing on-chain: you choose the rental model and price; the listing then goes through review before it appears in search.
      </div>
      <div className="row" style={{ alignItems: "flex-end" }}>
        <ListingTermsFields idPrefix="new" model={model} onModel={setModel} price={price} onPrice={setPrice} unit="ETH" invalid={wei === null} />
        <button
          className="btn btn-primary"
          disabled={wei === null || flow.busy || flow.state.step === "confirmed"}
          onClick={() => void flow.run({ functionName: "createListing", args: [result.listing_seed, ACCESS_TYPE[model], wei!, result.metadata_uri] }).then((h) => h && onCreated())}
        >
          Create listing
        </button>
      </div>
      {wei === null ? <span className="hint">Enter a price in ETH, e.g. 0.001 (at least 0.000001).</span> : null}
      <FlowStatus state={flow.state} after={<>Review: {existing ? <span data-testid="listing-review"><StatusBadge status={existing.review_status} /></span> : "pending"}. It appears in search once approved.</>} />
    </div>
  );
}

const ERC20_READS = [
  { type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] },
] as const;

/** The listing on the TokenMarketplace: createListing(seed, token, model, price, metadata URI), the price
 * typed in whole tokens and sent in the token's smallest unit. */
function CreateTokenListing({ result, token, onCreated, existing }: { result: NonNullable<Job["result"]>; token: Address; onCreated: () => void; existing: CreatorAgent | undefined }) {
  const { tokenMarketplace } = useDashboardConfig();
  const [model, setModel] = useState<RentalModel>("per_query");
  const [price, setPrice] = useState("");
  const flow = useTransactionFlow();
  const reads = useReadContracts({ contracts: [{ address: token, abi: ERC20_READS, functionName: "symbol" }, { address: token, abi: ERC20_READS, functionName: "decimals" }], allowFailure: false });
  const [symbol, decimals] = reads.data ?? [undefined, undefined];
  let units: bigint | null = null;
  try {
    units = decimals !== undefined && new RegExp(`^\\d+(\\.\\d{1,${decimals}})?$`).test(price.trim()) ? parseUnits(price.trim(), decimals) : null;
  } catch {
    units = null;
  }
  if (units === 0n) units = null;
  if (reads.isError) return <ErrorNote error={reads.error} title={`${token} is not a token this chain can read`} />;
  return (
    <div className="stack">
      <div className="notice notice-ok">
        Registered as <code>{result.agent_id}</code> for the token marketplace. Now create its listing on-chain, priced in {symbol ?? "the token"}; the listing then goes through review before it appears in search.
      </div>
      <div className="row" style={{ alignItems: "flex-end" }}>
        <ListingTermsFields idPrefix="new-token" model={model} onModel={setModel} price={price} onPrice={setPrice} unit={symbol ?? "…"} invalid={units === null} />
        <button
          className="btn btn-primary"
          disabled={units === null || !tokenMarketplace || flow.busy || flow.state.step === "confirmed"}
          onClick={() => void flow.run({ address: tokenMarketplace!, abi: tokenMarketplaceAbi as Abi, functionName: "createListing", args: [result.listing_seed, token, ACCESS_TYPE[model], units!, result.metadata_uri] }).then((r) => r && onCreated())}
        >
          Create listing
        </button>
      </div>
      {units === null ? <span className="hint">Enter a price in {symbol ?? "the token"}, more than 0{decimals !== undefined ? ` and with at most ${decimals} decimals` : ""}.</span> : null}
      <FlowStatus state={flow.state} after={<>Review: {existing ? <span data-testid="listing-review"><StatusBadge status={existing.review_status} /></span> : "pending"}. It appears in search once approved.</>} />
    </div>
  );
}
