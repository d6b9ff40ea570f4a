// The creator's side of ERC-8004 (docs/design/decisions/0080): one button registers the listing as an
// agent from the creator's own wallet, in the two transactions the registry needs (register, whose
// Registered event gives the agent id, then setAgentURI to the file that names that id); once it is
// registered, the agent's registration file is read back through the registry (tokenURI) and compared
// with the listing: a file that does not name the agent yet (the second transaction was refused) or
// whose `active` no longer follows the listing's status (after a pause, resume or close) is offered as
// one setAgentURI to bring it up to date.
import { useEffect, useState } from "react";
import { useConfig, useConnection, useReadContract } from "wagmi";
import { getBlock, readContract, signTypedData } from "wagmi/actions";
import { getAddress, parseEventLogs, zeroAddress, type Address, type TransactionReceipt } from "viem";
import { Link } from "react-router";
import type { Listing } from "@agent-rental/sdk";
import { useClient, usePublicQuery } from "../api/hooks.ts";
import { FlowStatus } from "../chain/FlowStatus.tsx";
import { useTransactionFlow } from "../chain/useContractFlow.ts";
import { explainError } from "../chain/errors.ts";
import { shortHex } from "../ui/format.ts";
import { identityRegistryAbi, namesAgent, parseAgentRegistry, preparedWrite, type RegistrationFile } from "../chain/registries.ts";
import { metadataPath } from "../lib/metadata.ts";
import { ErrorNote, Loading } from "../ui/notices.tsx";

type Status = Listing["status"];

/**
 * For the listing's creator. `chainStatus` is the listing's status on the marketplace contract when the
 * page reads it (the creator console does): until the service has seen the same status, the file it
 * would write is not the one wanted yet, and the page waits (`refetchListing`).
 */
export function Erc8004Registration(props: { listing: Listing; chainStatus?: Status | "none" | undefined; refetchListing: () => void; /** Where the register button is not offered (the creator console), a link to the page that has it. */ registerAt?: string }) {
  const { listing, chainStatus, refetchListing, registerAt } = props;
  const client = useClient();
  const registerFlow = useTransactionFlow();
  const uriFlow = useTransactionFlow();
  // The agent id the registry gave, before the service's index names it in the listing.
  const [registered, setRegistered] = useState<{ agentId: string; registry: string } | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const agentId = listing.erc8004?.agent_id ?? registered?.agentId ?? null;
  const registry = listing.erc8004?.agent_registry ?? registered?.registry ?? null;
  const busy = registerFlow.busy || uriFlow.busy;
  // Until the service's index names the agent the registry just gave, the listing is read again.
  const indexing = registered !== null && !listing.erc8004;
  useEffect(() => {
    if (!indexing) return;
    const timer = setInterval(refetchListing, 1000);
    return () => clearInterval(timer);
  }, [indexing, refetchListing]);

  /** Asks the API for the complete file and the setAgentURI pointing the agent at it, and sends it. */
  const pointAt = async (id: string): Promise<TransactionReceipt | null> => {
    let prepared;
    try {
      prepared = await client.listings.prepareErc8004(listing.id, id);
    } catch (error) {
      setProblem(error);
      return null;
    }
    let write;
    try {
      write = preparedWrite("identity", prepared.transaction, ["setAgentURI"]);
    } catch (error) {
      uriFlow.fail(error instanceof Error ? error.message : String(error));
      return null;
    }
    return uriFlow.run(write);
  };

  const register = async () => {
    setProblem(null);
    registerFlow.reset();
    uriFlow.reset();
    let prepared;
    try {
      prepared = await client.listings.prepareErc8004(listing.id);
    } catch (error) {
      setProblem(error);
      return;
    }
    let write;
    try {
      write = preparedWrite("identity", prepared.transaction, ["register"]);
    } catch (error) {
      registerFlow.fail(error instanceof Error ? error.message : String(error));
      return;
    }
    const receipt = await registerFlow.run(write);
    if (!receipt) return;
    const event = parseEventLogs({ abi: identityRegistryAbi, logs: receipt.logs, eventName: "Registered" })[0];
    if (!event) {
      registerFlow.fail("The registry confirmed the transaction but logged no Registered event; nothing else was sent.");
      return;
    }
    const id = event.args.agentId.toString();
    setRegistered({ agentId: id, registry: prepared.agent_registry });
    if (await pointAt(id)) refetchListing();
  };

  if (!agentId && registerAt) {
    return (
      <p className="small muted" data-testid="erc8004-registration">
        Not an ERC-8004 agent yet: <Link to={registerAt}>register it from its page</Link>.
      </p>
    );
  }
  if (!agentId) {
    return (
      <div className="stack" data-testid="erc8004-registration">
        <p className="hint">
          Registering makes this listing an agent of the open agent economy: an ERC-8004 identity your wallet owns, whose registration file names its A2A card, the MCP endpoint and this page. Your wallet sends two transactions: register, then setAgentURI once the registry has given the agent its id.
        </p>
        <div>
          <button className="btn btn-primary" disabled={busy} onClick={() => void register()}>
            Register as an ERC-8004 agent
          </button>
        </div>
        <Steps registerFlow={registerFlow} uriFlow={uriFlow} />
        {problem ? <ErrorNote error={problem} title="The registration could not be prepared" /> : null}
      </div>
    );
  }

  return (
    <div className="stack" data-testid="erc8004-registration">
      {indexing ? (
        <p className="small" role="status">
          Registered as agent {agentId}: waiting for the service to index it…
        </p>
      ) : null}
      <Steps registerFlow={registerFlow} uriFlow={uriFlow} />
      <FileCheck
        listing={listing}
        agentId={agentId}
        registry={registry}
        chainStatus={chainStatus}
        refetchListing={refetchListing}
        busy={busy}
        onUpdate={async () => {
          setProblem(null);
          registerFlow.reset();
          return pointAt(agentId);
        }}
        updateState={registerFlow.state.step === "idle" ? uriFlow.state : undefined}
      />
      {problem ? <ErrorNote error={problem} title="The registration file could not be prepared" /> : null}
      {registry && parseAgentRegistry(registry) ? <AgentWallet agentId={agentId} registry={parseAgentRegistry(registry)!.address} payout={listing.creator.id} /> : null}
    </div>
  );
}

/** How long ahead of the chain's clock the wallet's signature stays good (the registry takes 5 minutes at most). */
const SIGNATURE_LIFETIME_S = 240n;

/**
 * The agent's wallet (ERC-8004's `agentWallet`: where the agent is paid), which should be the
 * creator's payout address, the creator's own wallet (decision 0080). register sets it so; a transfer
 * of the agent clears it, and the owner may have set another. Setting it back takes that wallet's
 * EIP-712 signature of AgentWalletSet(agentId, newWallet, owner, deadline) under the registry's domain
 * (read from the registry, ERC-5267), then setAgentWallet from the owner: here both are the creator's
 * wallet, so one signature and one transaction.
 */
function AgentWallet({ agentId, registry, payout }: { agentId: string; registry: Address; payout: string }) {
  const wagmi = useConfig();
  const { address } = useConnection();
  const flow = useTransactionFlow();
  const wallet = useReadContract({ address: registry, abi: identityRegistryAbi, functionName: "getAgentWallet", args: [BigInt(agentId)] });
  if (wallet.isPending) return null;
  if (wallet.isError) return <ErrorNote error={wallet.error} title="The agent's wallet could not be read from the registry" />;
  const yours = wallet.data.toLowerCase() === payout.toLowerCase();
  const set = async () => {
    if (!address) return flow.fail("Connect your wallet first.");
    let signature: `0x${string}`;
    let deadline: bigint;
    try {
      flow.confirming();
      const [domain, block] = await Promise.all([readContract(wagmi, { address: registry, abi: identityRegistryAbi, functionName: "eip712Domain" }), getBlock(wagmi)]);
      // The registry compares the deadline with its own block time, not this computer's clock.
      deadline = block.timestamp + SIGNATURE_LIFETIME_S;
      const [, name, version, chainId, verifyingContract] = domain;
      signature = await signTypedData(wagmi, {
        domain: { name, version, chainId, verifyingContract },
        types: { AgentWalletSet: [{ name: "agentId", type: "uint256" }, { name: "newWallet", type: "address" }, { name: "owner", type: "address" }, { name: "deadline", type: "uint256" }] },
        primaryType: "AgentWalletSet",
        message: { agentId: BigInt(agentId), newWallet: getAddress(payout), owner: getAddress(address), deadline },
      });
    } catch (error) {
      return flow.fail(explainError(error));
    }
    if (await flow.run({ address: registry, abi: identityRegistryAbi, functionName: "setAgentWallet", args: [BigInt(agentId), getAddress(payout), deadline, signature] })) await wallet.refetch();
  };
  return (
    <div className="stack">
      {yours ? (
        <p className="small" data-testid="agent-wallet">
          Agent wallet: <span className="mono">{shortHex(wallet.data, 4)}</span>, your payout address.
        </p>
      ) : (
        <div className="notice notice-warn stack" role="status" data-testid="agent-wallet">
          <span>
            {wallet.data === zeroAddress
              ? "The agent has no wallet set (a transfer of the agent clears it): agents that pay it would find no address."
              : `The agent's wallet is ${wallet.data}, not your payout address.`}{" "}
            Setting it takes your wallet's signature (EIP-712), then one transaction.
          </span>
          <div>
            <button className="btn btn-small" disabled={flow.busy} onClick={() => void set()}>
              Set the agent's wallet to your payout address
            </button>
          </div>
        </div>
      )}
      {flow.state.step !== "idle" ? <FlowStatus state={flow.state} after={<>The agent's wallet is your payout address.</>} /> : null}
    </div>
  );
}

/** The two registration transactions, each with its hash as soon as it exists. */
function Steps({ registerFlow, uriFlow }: { registerFlow: ReturnType<typeof useTransactionFlow>; uriFlow: ReturnType<typeof useTransactionFlow> }) {
  if (registerFlow.state.step === "idle") return null;
  return (
    <div className="stack">
      <div>
        <strong className="small">1 of 2: register</strong>
        <FlowStatus state={registerFlow.state} />
      </div>
      {uriFlow.state.step !== "idle" ? (
        <div>
          <strong className="small">2 of 2: point the agent at its registration file (setAgentURI)</strong>
          <FlowStatus state={uriFlow.state} after={<>The agent's registration file names it.</>} />
        </div>
      ) : null}
    </div>
  );
}

/** Reads the agent's file through the registry and says whether it is current, offering the update. */
function FileCheck(props: {
  listing: Listing;
  agentId: string;
  registry: string | null;
  chainStatus: Status | "none" | undefined;
  refetchListing: () => void;
  busy: boolean;
  onUpdate: () => Promise<TransactionReceipt | null>;
  updateState: ReturnType<typeof useTransactionFlow>["state"] | undefined;
}) {
  const { listing, agentId, registry, chainStatus, refetchListing, busy, onUpdate, updateState } = props;
  const parsed = registry ? parseAgentRegistry(registry) : null;
  const tokenUri = useReadContract({ address: parsed?.address, abi: identityRegistryAbi, functionName: "tokenURI", args: [BigInt(agentId)], query: { enabled: parsed !== null } });
  const file = usePublicQuery<RegistrationFile>(metadataPath(tokenUri.data));
  // The service writes `active` from the status it has indexed: wait until it has the chain's.
  const behind = chainStatus !== undefined && chainStatus !== "none" && chainStatus !== listing.status;
  useEffect(() => {
    if (!behind) return;
    refetchListing();
    const timer = setInterval(refetchListing, 1000);
    return () => clearInterval(timer);
  }, [behind, refetchListing]);
  if (!parsed) return null;
  if (tokenUri.isPending || (tokenUri.data && file.isPending)) return <Loading label="Reading the agent's registration file" />;
  if (tokenUri.isError) return <ErrorNote error={tokenUri.error} title="The agent's registration file could not be read from the registry" />;
  if (file.isError) return <ErrorNote error={file.error} title="The agent's registration file could not be read" />;
  const wanted = listing.status === "active";
  const named = file.data ? namesAgent(file.data, agentId, registry!) : false;
  const current = named && file.data?.active === wanted;
  const update = async () => {
    if (await onUpdate()) {
      await tokenUri.refetch();
      refetchListing();
    }
  };
  return (
    <div className="stack">
      {behind ? (
        <p className="small muted" role="status">
          The listing is {chainStatus} on-chain; waiting for the service to see it before updating the registration file…
        </p>
      ) : current ? (
        <p className="small" role="status" data-testid="erc8004-file">
          Registration file up to date: it names agent {agentId} and says active: {String(wanted)}.
        </p>
      ) : (
        <div className="notice notice-warn stack" role="status" data-testid="erc8004-file">
          <span>
            {!named
              ? `The agent's registration file does not name agent ${agentId} yet: point the agent at its complete file.`
              : `The agent's registration file says active: ${String(file.data?.active)}, but the listing is ${listing.status}: update it so agents see whether it takes work.`}
          </span>
          <div>
            <button className="btn btn-small" disabled={busy} onClick={() => void update()}>
              Update the registration file
            </button>
          </div>
        </div>
      )}
      {updateState && updateState.step !== "idle" ? <FlowStatus state={updateState} after={<>The registration file is current.</>} /> : null}
    </div>
  );
}
