// Starts a Hardhat node (the local chain) as a child process bound to 127.0.0.1 and waits until it
// answers JSON-RPC. Used by the local stack, the test setup and the benchmarks. By default the node
// mines a block per transaction the moment it arrives (automine); with a block time it mines on an
// interval, as a real network does (a block every 2 s on Base and OP chains), so the service's
// transactions wait for their block and share it.
import { spawn } from "node:child_process";
import { createTestClient, http } from "viem";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Hardhat's well-known development accounts (mnemonic "test test ... junk"); public knowledge, local only. */
export const DEV_ACCOUNTS = [
  { address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" },
  { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" },
  { address: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", privateKey: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" },
  { address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", privateKey: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6" },
  { address: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", privateKey: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a" },
  { address: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", privateKey: "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba" },
  { address: "0x976EA74026E726554dB657fA54763abd0C3a0aa9", privateKey: "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e" },
  { address: "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955", privateKey: "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356" },
  { address: "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", privateKey: "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97" },
  { address: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", privateKey: "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6" },
] as const satisfies readonly { address: `0x${string}`; privateKey: `0x${string}` }[];

export const LOCAL_CHAIN_ID = 31337;

export interface ChainNode {
  rpcUrl: string;
  pid: number;
  /** Resolves when the node's process has ended, by stop() or otherwise (killed, crashed). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once stop() was called: an exit after it is the one asked for. */
  readonly stopping: boolean;
  /** Mines a block every `blockTimeMs` milliseconds from now on, or one per transaction (automine) with 0. */
  setBlockTime(blockTimeMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface StartChainOptions {
  port: number;
  /** Upper bound on the wait for the node to answer, in milliseconds. */
  readyTimeoutMs?: number;
  /** Where the node's own output goes; ignored by default. */
  log?: (line: string) => void;
  /** Mine a block every this many milliseconds instead of one per transaction (default 0: automine). */
  blockTimeMs?: number;
  /** The chain id the node reports (default 31337): another network's, for a rehearsal against it. */
  chainId?: number;
}

/** The most a block time may be (a minute: longer only stalls whoever waits for a block). */
export const MAX_BLOCK_TIME_MS = 60_000;

/**
 * Switches a Hardhat node between automine (`blockTimeMs` 0: a block per transaction, at once) and
 * interval mining (`evm_setAutomine false`, then `evm_setIntervalMining blockTimeMs`: a block every
 * interval, holding every transaction that arrived since the last one, empty or not).
 */
export async function setBlockTime(rpcUrl: string, blockTimeMs: number): Promise<void> {
  if (!Number.isInteger(blockTimeMs) || blockTimeMs < 0 || blockTimeMs > MAX_BLOCK_TIME_MS) throw new RangeError(`the block time must be a whole number of milliseconds from 0 to ${MAX_BLOCK_TIME_MS}`);
  const test = createTestClient({ mode: "hardhat", transport: http(rpcUrl) });
  if (blockTimeMs === 0) {
    await test.setIntervalMining({ interval: 0 });
    await test.setAutomine(true);
  } else {
    await test.setAutomine(false);
    // viem's hardhat mode takes seconds and sends milliseconds.
    await test.setIntervalMining({ interval: blockTimeMs / 1000 });
  }
}

/** Starts `hardhat node --hostname 127.0.0.1` and resolves once `eth_chainId` answers. */
export async function startChain(options: StartChainOptions): Promise<ChainNode> {
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  const child = spawn(
    join(root, "node_modules/.bin/node"),
    ["--import", join(root, "local/parent-watchdog.mjs"), join(root, "node_modules/hardhat/dist/src/cli.js"), "--config", "contracts/hardhat.config.ts", "node", "--hostname", "127.0.0.1", "--port", String(options.port), ...(options.chainId ? ["--chain-id", String(options.chainId)] : [])],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}` } },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    if (output.length < 20_000) output += text;
    for (const line of text.split("\n")) if (line.trim() && options.log) options.log(line);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let stopping = false;

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let ready = false;
  while (Date.now() < deadline) {
    const state = await Promise.race([
      exited.then(() => "exited" as const),
      chainAnswers(rpcUrl).then((ok) => (ok ? ("ready" as const) : ("waiting" as const))),
    ]);
    if (state === "exited") throw new Error(`the Hardhat node exited before it was ready on ${rpcUrl}:\n${output.slice(-4000)}`);
    if (state === "ready") {
      ready = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!ready) {
    child.kill("SIGKILL");
    throw new Error(`the Hardhat node did not answer on ${rpcUrl} in time:\n${output.slice(-4000)}`);
  }
  if (options.blockTimeMs) {
    try {
      await setBlockTime(rpcUrl, options.blockTimeMs);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }
  return {
    rpcUrl,
    pid: child.pid!,
    exited,
    get stopping() {
      return stopping;
    },
    setBlockTime: (blockTimeMs) => setBlockTime(rpcUrl, blockTimeMs),
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function chainAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { result?: string };
    return typeof body.result === "string";
  } catch {
    return false;
  }
}
