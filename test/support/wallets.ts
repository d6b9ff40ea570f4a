// Smart-contract wallets for signature tests: an ERC-1271 wallet owned by an account, and a CREATE2
// factory for it so a counterfactual (undeployed) wallet can sign with ERC-6492. Compiled at test time
// with the same solc the project uses.
import { createRequire } from "node:module";
import { createPublicClient, createWalletClient, encodeAbiParameters, encodeFunctionData, http, parseAbi, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { chainFor } from "../../src/chain/client.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";

const require = createRequire(import.meta.url);

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;
contract OwnedWallet {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
contract WalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = address(new OwnedWallet{salt: salt}(owner));
    }
    function predict(address owner, bytes32 salt) external view returns (address) {
        bytes32 codeHash = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }
}`;

let compiled: { factoryBytecode: Hex } | undefined;

function compile(): { factoryBytecode: Hex } {
  if (compiled) return compiled;
  const solc = require("solc") as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: "Solidity", sources: { "Wallets.sol": { content: SOURCE } }, settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["evm.bytecode.object"] } } } })),
  ) as { contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>; errors?: { severity: string; formattedMessage: string }[] };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  compiled = { factoryBytecode: `0x${output.contracts["Wallets.sol"]!.WalletFactory!.evm.bytecode.object}` };
  return compiled;
}

export const factoryAbi = parseAbi(["function deploy(address owner, bytes32 salt) returns (address)", "function predict(address owner, bytes32 salt) view returns (address)"]);

/** Deploys a wallet factory with a funded development account. */
export async function deployWalletFactory(rpcUrl: string, deployer: PrivateKeyAccount): Promise<Address> {
  const chain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
  const account = deployer;
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const client = createPublicClient({ chain, transport: http(rpcUrl) });
  const hash = await wallet.deployContract({ abi: [], bytecode: compile().factoryBytecode });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return receipt.contractAddress!;
}

/** Deploys an owned wallet through the factory and returns its address. */
export async function deployOwnedWallet(rpcUrl: string, factory: Address, owner: Address, salt: Hex, deployer: PrivateKeyAccount): Promise<Address> {
  const chain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
  const account = deployer;
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const client = createPublicClient({ chain, transport: http(rpcUrl) });
  const predicted = await client.readContract({ address: factory, abi: factoryAbi, functionName: "predict", args: [owner, salt] });
  const hash = await wallet.writeContract({ address: factory, abi: factoryAbi, functionName: "deploy", args: [owner, salt] });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return predicted;
}

/** Wraps an owner's signature per ERC-6492 for a wallet the factory has not deployed yet. */
export function wrap6492(factory: Address, owner: Address, salt: Hex, signature: Hex): Hex {
  const factoryData = encodeFunctionData({ abi: factoryAbi, functionName: "deploy", args: [owner, salt] });
  const encoded = encodeAbiParameters([{ type: "address" }, { type: "bytes" }, { type: "bytes" }], [factory, factoryData, signature]);
  return `${encoded}6492649264926492649264926492649264926492649264926492649264926492` as Hex;
}

export async function predictWallet(rpcUrl: string, factory: Address, owner: Address, salt: Hex): Promise<Address> {
  const client = createPublicClient({ chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), transport: http(rpcUrl) });
  return client.readContract({ address: factory, abi: factoryAbi, functionName: "predict", args: [owner, salt] });
}
