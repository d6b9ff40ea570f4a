// A listing as My listings reads it from its own contract: the Marketplace for a listing priced in ETH, the
// TokenMarketplace for one priced in a token (its amounts then in the token: its symbol and decimals are
// read from the token's contract). The Marketplace is read first and, when the listing is not there, the
// TokenMarketplace (a listing lives on one of them only).
import { useReadContract, useReadContracts } from "wagmi";
import { erc20Abi, formatUnits, parseUnits, type Address } from "viem";
import { marketplaceAbi, onChainId, tokenMarketplaceAbi } from "../../chain/abi.ts";
import { useDashboardConfig } from "../../lib/context.tsx";
import { formatWei } from "../../ui/format.ts";

/** How a listing's amounts are written and read back: ETH (wei) or its token's smallest unit. */
export interface ListingMoney {
  market: "eth" | "token";
  symbol: string;
  format: (units: bigint) => string;
  /** The amount typed in the currency ("0.25"), in its smallest unit; null when it is not a positive
   * amount the currency can hold exactly (never rounded: more decimals than it has are refused). */
  parse: (text: string) => bigint | null;
  /** The price as it is typed back into the form. */
  toText: (units: bigint) => string;
}

export interface OnChainListing {
  price: bigint;
  escrow: bigint;
  accessType: number;
  status: number;
  creator: Address;
  metadataUri: string;
}

const ETH: ListingMoney = {
  market: "eth",
  symbol: "ETH",
  format: formatWei,
  parse: (text) => exactAmount(text, 18),
  toText: (units) => formatUnits(units, 18),
};

/** `text` in a currency of `decimals`, in its smallest unit: null unless it is a positive decimal number
 * with at most `decimals` places (viem's parseUnits rounds the places beyond). */
function exactAmount(text: string, decimals: number): bigint | null {
  const value = text.trim();
  const match = /^(\d*)(?:\.(\d*))?$/.exec(value);
  if (!match || value === "" || value === "." || (match[2]?.length ?? 0) > decimals) return null;
  const units = parseUnits(value, decimals);
  return units > 0n ? units : null;
}

function tokenMoney(symbol: string, decimals: number): ListingMoney {
  return {
    market: "token",
    symbol,
    format: (units) => `${formatUnits(units, decimals)} ${symbol}`,
    parse: (text) => exactAmount(text, decimals),
    toText: (units) => formatUnits(units, decimals),
  };
}

export function useOnChainListing(listingId: string) {
  const { marketplace, tokenMarketplace } = useDashboardConfig();
  const id = onChainId(listingId);
  const eth = useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [id] });
  const onEth = Boolean(eth.data && eth.data[3] !== 0);
  const token = useReadContract({
    address: tokenMarketplace ?? undefined,
    abi: tokenMarketplaceAbi,
    functionName: "listings",
    args: [id],
    query: { enabled: tokenMarketplace !== null && eth.isSuccess && !onEth },
  });
  const onToken = !onEth && Boolean(token.data && token.data[3] !== 0);
  const tokenAddress = onToken ? (token.data![6] as Address) : undefined;
  const erc20 = useReadContracts({
    contracts: [
      { address: tokenAddress, abi: erc20Abi, functionName: "symbol" },
      { address: tokenAddress, abi: erc20Abi, functionName: "decimals" },
    ],
    allowFailure: false,
    query: { enabled: tokenAddress !== undefined },
  });
  const listing: OnChainListing | undefined = onEth
    ? { price: eth.data![0], escrow: eth.data![1], accessType: eth.data![2], status: eth.data![3], creator: eth.data![4], metadataUri: eth.data![6] }
    : onToken
      ? { price: token.data![0], escrow: token.data![1], accessType: token.data![2], status: token.data![3], creator: token.data![4], metadataUri: token.data![7] }
      : undefined;
  const money = onEth ? ETH : erc20.data ? tokenMoney(erc20.data[0], erc20.data[1]) : undefined;
  // Shown once both the listing and its currency are known.
  const exists = listing !== undefined && money !== undefined;
  const withdrawable = useReadContract({
    address: onToken ? (tokenMarketplace ?? undefined) : marketplace,
    abi: onToken ? tokenMarketplaceAbi : marketplaceAbi,
    functionName: "withdrawableEarnings",
    args: [id],
    query: { enabled: exists },
  });
  const refetch = () => {
    void (onToken ? token.refetch() : eth.refetch());
    void withdrawable.refetch();
  };
  const error = eth.error ?? token.error ?? erc20.error ?? null;
  return { exists, listing: exists ? listing : undefined, money: exists ? money : undefined, withdrawable: withdrawable.data as bigint | undefined, refetch, error };
}
