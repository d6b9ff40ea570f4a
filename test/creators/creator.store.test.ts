// The creator store's conditions, against the DynamoDB emulator: what an application and a review may
// overwrite, and the record a refusal carries.
import { beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { CreatorAlreadyApprovedError, CreatorNotFoundError, getCreatorNames, getCreatorProfile, listCreatorProfiles, putCreatorApplication, setCreatorReview } from "../../src/creators/creator.store.ts";

let ctx: TestContext;
let world: World | undefined;
const wallet = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
});

describe("creator store", () => {
  it("refuses an approved creator's new application with the approved profile, and leaves it approved", async () => {
    const { tables } = ctx.services;
    const creator = wallet();
    await putCreatorApplication(tables, creator, "First Name", "2026-01-01T00:00:00.000Z");
    await setCreatorReview(tables, creator, "approved", null, "2026-01-02T00:00:00.000Z");
    const refusal = await putCreatorApplication(tables, creator, "Second Name", "2026-01-03T00:00:00.000Z").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CreatorAlreadyApprovedError);
    expect((refusal as CreatorAlreadyApprovedError).profile).toMatchObject({ wallet: creator.toLowerCase(), display_name: "First Name", status: "approved" });
    expect(await getCreatorProfile(tables, creator)).toMatchObject({ display_name: "First Name", status: "approved", reviewed_at: "2026-01-02T00:00:00.000Z" });
  });

  it("lets a rejected creator apply again, back in the pending list", async () => {
    const { tables } = ctx.services;
    const creator = wallet();
    await putCreatorApplication(tables, creator, "Tried Once", "2026-02-01T00:00:00.000Z");
    await setCreatorReview(tables, creator, "rejected", "no samples", "2026-02-02T00:00:00.000Z");
    expect((await listCreatorProfiles(tables, "rejected")).map((p) => p.wallet)).toContain(creator.toLowerCase());
    await putCreatorApplication(tables, creator, "Tried Twice", "2026-02-03T00:00:00.000Z");
    expect(await getCreatorProfile(tables, creator)).toMatchObject({ display_name: "Tried Twice", status: "pending" });
    expect((await listCreatorProfiles(tables, "pending")).map((p) => p.wallet)).toContain(creator.toLowerCase());
    expect((await listCreatorProfiles(tables, "rejected")).map((p) => p.wallet)).not.toContain(creator.toLowerCase());
  });

  it("refuses a review of a wallet that never applied, without creating a profile", async () => {
    const { tables } = ctx.services;
    const stranger = wallet();
    await expect(setCreatorReview(tables, stranger, "approved", null, new Date().toISOString())).rejects.toBeInstanceOf(CreatorNotFoundError);
    expect(await getCreatorProfile(tables, stranger)).toBeNull();
  });

  it("reads display names by wallet, whatever the wallet's case", async () => {
    const { tables } = ctx.services;
    const creator = wallet();
    await putCreatorApplication(tables, creator, "Named", new Date().toISOString());
    const names = await getCreatorNames(tables, [creator, creator.toLowerCase(), wallet()]);
    expect([...names]).toEqual([[creator.toLowerCase(), "Named"]]);
  });
});
