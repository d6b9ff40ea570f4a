// Wallet signers: a viem-like account, or an EIP-1193 provider (an injected browser wallet, or any
// provider object). Both sign EIP-191 personal messages.

/** A viem `Account` (local or JSON-RPC), or anything of the same shape. */
export interface AccountSigner {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
}

/** An EIP-1193 provider, for example `window.ethereum`. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
}

export type Signer = AccountSigner | Eip1193Provider;

export interface SignerOptions {
  /** For a provider: the account to sign with (default: the first of `eth_requestAccounts`). */
  address?: string;
}

/** A signer resolved to its address and a function that signs a message. */
export interface ResolvedSigner {
  address: string;
  sign(message: string): Promise<string>;
}

function isProvider(signer: Signer): signer is Eip1193Provider {
  return typeof (signer as Eip1193Provider).request === "function" && typeof (signer as AccountSigner).signMessage !== "function";
}

function utf8Hex(text: string): string {
  let hex = "0x";
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

export async function resolveSigner(signer: Signer, options: SignerOptions = {}): Promise<ResolvedSigner> {
  if (!isProvider(signer)) {
    if (typeof signer.address !== "string" || typeof signer.signMessage !== "function") throw new TypeError("signer must be an account ({ address, signMessage }) or an EIP-1193 provider ({ request })");
    return { address: signer.address, sign: (message) => signer.signMessage({ message }) };
  }
  let address = options.address;
  if (address === undefined) {
    const accounts = await signer.request({ method: "eth_requestAccounts" });
    if (!Array.isArray(accounts) || typeof accounts[0] !== "string") throw new TypeError("the provider returned no account");
    address = accounts[0];
  }
  const account = address;
  return {
    address: account,
    // personal_sign takes the message as hex-encoded UTF-8 (what wallets decode and display), then the address.
    sign: async (message) => {
      const signature = await signer.request({ method: "personal_sign", params: [utf8Hex(message), account] });
      if (typeof signature !== "string") throw new TypeError("the provider returned no signature");
      return signature;
    },
  };
}
