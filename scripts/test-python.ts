// The Python SDK's lane: starts a test world (its own chain, emulators, the API served on a free port,
// the settler and run log, a fake connected agent, the model server), publishes and rents agents of all
// three rental models and one priced in USDC (the TokenMarketplace deployed beside the Marketplace; its
// run charged and counted, for the creator's analytics), writes what the Python suite needs to a JSON
// file, runs pytest (python/tests) against it, and stops everything. The last line is the tally
// `scripts/test.ts` counts: "python: N passed, N failed, N skipped".
//
// Without a Python 3.10+ that has pytest and venv (PYTHON, else python3, else /usr/bin/python3), the
// suite is reported skipped with the reason; under CI=true that is a failure (the bootstrap installs
// python3, python3-pytest, python3-venv and python3-mypy from Debian).
//
//   node --import tsx scripts/test-python.ts [-- pytest arguments, e.g. -k stream]
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function tally(passed: number, failed: number, skipped: number, note = ""): never {
  process.stdout.write(`python: ${passed} passed, ${failed} failed, ${skipped} skipped${note ? ` (${note})` : ""}\n`);
  process.exit(failed > 0 ? 1 : 0);
}

/** The first Python 3.10+ with pytest and venv; undefined with the reason when there is none. */
function findPython(): { python: string } | { reason: string } {
  // PYTHON names the interpreter to use (and only that one); else python3 on the PATH, then Debian's.
  const candidates = process.env.PYTHON ? [process.env.PYTHON] : ["python3", "/usr/bin/python3"];
  const reasons: string[] = [];
  // One that has mypy as well first (python/tests/test_types.py looks for mypy on its own otherwise).
  for (const modules of ["sys, venv, ensurepip, pytest, mypy", "sys, venv, ensurepip, pytest"]) {
    for (const python of candidates) {
      const probe = spawnSync(python, ["-c", `import ${modules}; assert sys.version_info >= (3, 10), sys.version`], { encoding: "utf8" });
      if (probe.status === 0) return { python };
      if (modules.endsWith("pytest")) reasons.push(`${python}: ${probe.error ? "not found" : (probe.stderr.trim().split("\n").at(-1) ?? `exit ${probe.status}`)}`);
    }
  }
  return { reason: `no Python 3.10+ with pytest and venv (${reasons.join("; ")}); install python3, python3-pytest and python3-venv` };
}

const found = findPython();
if ("reason" in found) {
  process.stdout.write(`The Python SDK suite cannot run: ${found.reason}.\n`);
  if (process.env.CI === "true") tally(0, 1, 0, "CI needs Python");
  tally(0, 0, 1, "skipped: no Python");
}
const { python } = found;

const { startInfrastructure, startWorldOn } = await import("../test/support/world-on.ts");
const { startModelServer } = await import("../local/model-server.ts");
const { DEMO_PROVIDER_KEY } = await import("../local/demo.ts");
const { createKey } = await import("../test/support/auth.ts");
const { deployTokens, handAuthority, publishTokenAgent, rentInToken } = await import("../test/support/token-listings.ts");
const { rollupsSettled } = await import("../src/analytics/record.ts");
const { until } = await import("../test/support/until.ts");
type AgentCall = import("../test/support/connected-agent.ts").AgentCall;
type RentalModel = import("@agent-rental/core/vocabulary").RentalModel;

const infrastructure = await startInfrastructure();
const stops: (() => unknown)[] = [() => infrastructure.stop()];
const stopAll = async () => {
  for (const stop of stops.splice(0).reverse()) await Promise.resolve(stop()).catch(() => undefined);
};
process.on("SIGINT", () => void stopAll().then(() => process.exit(130)));
process.on("SIGTERM", () => void stopAll().then(() => process.exit(143)));

let code = 1;
const dir = mkdtempSync(join(tmpdir(), "python-sdk-"));
stops.push(() => rmSync(dir, { recursive: true, force: true }));
let output = "";
try {
  /** The connected agent; its behaviour is chosen by the task's first word (as test/sdk/client.test.ts's). */
  async function agent(call: AgentCall): Promise<void> {
    const [word] = call.task.split(" ");
    // "drip": the first delta at once, the rest when the test opens the task's gate.
    if (word === "drip") return call.stream(["one ", "two"], { findings: ["one", "two"] }, (i) => (i === 0 ? call.gate() : undefined));
    await call.gate();
    if (word === "stream") return call.stream(["alpha ", "beta ", "gamma"], { findings: ["alpha", "beta", "gamma"] });
    call.output({ findings: [`done: ${call.task}`] });
  }
  // The TokenMarketplace and its tokens beside the Marketplace, as on the local stack (a creator's
  // analytics per currency).
  const tokens = await deployTokens(infrastructure.rpcUrl);
  const world = await startWorldOn(infrastructure, { env: { CATALOGUE_REFRESH_MS: "0", RUN_LOG_INTERVAL_MS: "500", ...tokens.env }, agent: { handler: agent } });
  stops.push(() => world.close());
  await handAuthority(world, tokens);
  // With the local stack's key, so the examples' default for it is tested too.
  const models = await startModelServer({ apiKey: DEMO_PROVIDER_KEY });
  stops.push(() => models.stop());

  const manifest = {
    category: "research",
    description: "A connected test agent for the Python SDK",
    model: { provider: "provider_a", model: "m" },
    input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
    output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
    timeout_seconds: 20,
  };
  const publish = (name: string, rental: RentalModel, price = "0.001") => world.publishConnected(name, { manifest, rental, price });
  const oneTime = await publish("py-one-time", "one_time");
  const subscription = await publish("py-subscription", "subscription");
  // A price above 2^53 wei: an int parsed as a float would round it.
  const perQuery = await publish("py-per-query", "per_query", "0.012345678901234567");
  const unrented = await publish("py-unrented", "one_time");
  const crowded = await publish("py-crowded", "one_time");
  const renter = await world.renter();
  await world.rent(renter.account, oneTime);
  await world.rent(renter.account, subscription);
  await world.rent(renter.account, perQuery, { deposit: perQuery.priceWei * 10n });
  await world.rent(renter.account, crowded);
  const spare = await createKey(world.app, renter.account, renter.token, "to revoke");

  // The creator's listing in USDC, rented by a renter of its own and run once (charged on the
  // TokenMarketplace by the settler), counted by the index: the creator's analytics per currency.
  const usdcPrice = 250_000n;
  const usdcListing = await publishTokenAgent(world, tokens, "py-usdc-stats", { rental: "per_query", token: tokens.tokens.usdc, price: usdcPrice });
  const tokenRenter = await world.renter();
  await rentInToken(world, tokens, tokenRenter.account, usdcListing, { deposit: usdcPrice * 3n });
  const ran = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${tokenRenter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: usdcListing.agent_id, task: "count me" }) });
  if (ran.status !== 200) throw new Error(`the USDC listing's run answered ${ran.status}: ${await ran.text()}`);
  await ran.text();
  const creator = await world.creator();
  await until("the USDC run's charge to be counted", async () => {
    await world.index();
    await rollupsSettled();
    const res = await fetch(`${world.url}/v1/creators/me/listings/${usdcListing.listing_id}/analytics?granularity=month&from=${encodeURIComponent(new Date(Date.now() - 400 * 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 400 * 86_400_000).toISOString())}`, { headers: { authorization: `Bearer ${creator.token}` } });
    const figures = (await res.json()) as { totals: { by_currency: { revenue: { gross: string } }[] }; reconciliation: { matches: boolean } };
    return figures.totals.by_currency[0]?.revenue.gross === usdcPrice.toString() && figures.reconciliation.matches;
  }, 60_000, 250);

  // A small control server for what only the world can do: hold and open the agent's gates, count its
  // deliveries, and sign with the renter's wallet (EIP-191) for sign-in and key creation.
  const control: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const task = url.searchParams.get("task") ?? "";
    const answer = (value: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (url.pathname === "/hold") return answer({ arrived: world.agent.gates.hold(task).arrived });
      if (url.pathname === "/arrived") return answer({ arrived: world.agent.gates.get(task)?.arrived ?? 0 });
      if (url.pathname === "/open") return answer({ opened: (world.agent.gates.get(task)?.open(), true) });
      if (url.pathname === "/deliveries") return answer({ count: world.agent.deliveries.filter((d) => d.task === task).length });
      if (url.pathname === "/sign") {
        const { message } = JSON.parse(body) as { message: string };
        return void renter.account.signMessage({ message }).then((signature) => answer({ signature }));
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  stops.push(() => new Promise<void>((resolve) => control.close(() => resolve())));
  stops.push(() => world.agent.gates.openAll());
  const address = control.address();
  const controlUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  // The models as the document the served API answers (GET /v1/openapi.json) generates them: the suite
  // compares them with the package's (python/tests/test_types.py).
  const { fetchOpenApiDocument, generatePythonModels, PYTHON_MODELS_COMMAND } = await import("./generate-python-models.ts");
  const servedModels = join(dir, "models-from-the-served-document.py");
  writeFileSync(servedModels, await generatePythonModels(await fetchOpenApiDocument(world.url)));

  const listing = (p: { listing_id: string; agent_id: string; name?: string }) => ({ listing_id: p.listing_id, agent_id: p.agent_id });
  const worldFile = join(dir, "world.json");
  writeFileSync(
    worldFile,
    JSON.stringify({
      api_url: world.url,
      rpc_url: world.rpcUrl,
      marketplace: world.target.marketplace,
      control_url: controlUrl,
      model_server_url: models.url,
      model_api_key: DEMO_PROVIDER_KEY,
      renter: { address: renter.account.address, api_key: renter.key, spare_key: spare.key, spare_key_id: spare.key_id },
      creator: { address: creator.account.address, token: creator.token },
      token_listing: { ...listing(usdcListing), price_units: usdcPrice.toString(), symbol: tokens.tokens.usdc.symbol, address: tokens.tokens.usdc.address, decimals: tokens.tokens.usdc.decimals, renter: tokenRenter.account.address },
      listings: { one_time: listing(oneTime), subscription: listing(subscription), per_query: { ...listing(perQuery), price_wei: perQuery.priceWei.toString() }, unrented: listing(unrented), crowded: listing(crowded) },
      served_models: servedModels,
      models_command: `${PYTHON_MODELS_COMMAND} --from <api url>`,
      work_dir: dir,
    }),
  );

  const args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "tests", ...process.argv.slice(2).filter((a) => a !== "--")];
  code = await new Promise<number>((resolve) => {
    const child = spawn(python, args, {
      cwd: join(root, "python"),
      env: { ...process.env, AGENT_RENTAL_TEST_WORLD: worldFile, PYTHONPATH: join(root, "python/src"), PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const collect = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on("data", collect(process.stdout));
    child.stderr.on("data", collect(process.stderr));
    child.on("close", (status) => resolve(status ?? 1));
  });
} catch (error) {
  process.stdout.write(`The Python SDK suite could not start its world: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await stopAll();
}

// pytest's summary line: "3 passed, 1 failed, 2 skipped in 4.1s" (any subset, any order; errors count as failures).
const summary = output.split("\n").reverse().find((line) => /\d+ (passed|failed|skipped|error)/.test(line)) ?? "";
const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
const failed = count("failed") + count("errors?");
tally(count("passed"), code !== 0 && failed === 0 ? 1 : failed, count("skipped"));
