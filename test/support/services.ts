// Where the shared emulators and chain of a test run listen, and what a test world's services are
// (TestContext). A suite builds its world, and with it its own table prefix, queues, bucket and
// marketplace deployment, with startWorld (test/support/world.ts): the one harness.
import { inject } from "vitest";
import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Config } from "../../src/config.ts";
import type { Services } from "../../src/services.ts";
import { fundAccount } from "./chain-actions.ts";

export interface TestContext {
  config: Config;
  services: Services;
  env: Record<string, string>;
  /** The protocol authority of this file's marketplace: a fresh, funded account. */
  authority: PrivateKeyAccount & { privateKey: Hex };
  /** The fee recipient of this file's marketplace. */
  treasury: PrivateKeyAccount;
}

/**
 * A fresh account funded on the shared chain. Test files run in parallel against one node: accounts
 * of their own keep their transactions' nonces from colliding.
 */
export const fundedAccount = fundAccount;

/** Where the shared emulators and chain of this test run listen (started by the global setup). */
export function sharedInfrastructure(): { rpcUrl: string; dynamoEndpoint: string; awsEndpoint: string } {
  return { rpcUrl: inject("rpcUrl"), dynamoEndpoint: inject("dynamoEndpoint"), awsEndpoint: inject("awsEndpoint") };
}
