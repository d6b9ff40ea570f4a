// Starts the real infrastructure once for the whole vitest run, each on a free port: a Hardhat node
// (the chain), dynalite (DynamoDB) and fauxqs (SQS/S3). Test files reach them through `inject()` and
// isolate themselves with their own contract deployment and their own table names.
import type { TestProject } from "vitest/node";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { startDynamo, startQueues, type Emulator } from "../../local/emulators.ts";
import { freePort } from "../../local/ports.ts";

declare module "vitest" {
  export interface ProvidedContext {
    rpcUrl: string;
    dynamoEndpoint: string;
    awsEndpoint: string;
  }
}

let chain: ChainNode | undefined;
let dynamo: Emulator | undefined;
let queues: Emulator | undefined;

export async function setup(project: TestProject): Promise<void> {
  [chain, dynamo, queues] = await Promise.all([
    freePort().then((port) => startChain({ port })),
    freePort().then((port) => startDynamo({ port })),
    freePort().then((port) => startQueues({ port })),
  ]);
  project.provide("rpcUrl", chain.rpcUrl);
  project.provide("dynamoEndpoint", dynamo.endpoint);
  project.provide("awsEndpoint", queues.endpoint);
}

export async function teardown(): Promise<void> {
  await Promise.allSettled([chain?.stop(), dynamo?.stop(), queues?.stop()]);
}
