// The test world on the shared emulators and chain of the test run (started by the global setup):
// services, app, the API served over HTTP, background jobs, the fake connected agent, and publishing
// through the real pipeline. See test/support/world-on.ts for what a world holds.
//
// @example
// let world: World;
// beforeAll(async () => (world = await startWorld({ agent: true })));
// afterAll(() => world?.close());
import { startWorldOn, type World, type WorldOptions } from "./world-on.ts";
import { sharedInfrastructure } from "./services.ts";

export * from "./world-on.ts";

/** Opens a world on the test run's shared emulators and chain. */
export function startWorld(options: WorldOptions = {}): Promise<World> {
  return startWorldOn(sharedInfrastructure(), options);
}
