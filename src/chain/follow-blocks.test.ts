// When the block follower polls: probes before the expected block, closer and closer, then short polls
// from it on (so a block that comes early is seen early, and a late phase corrects itself).
import { describe, expect, it } from "vitest";
import { nextPollAt } from "./follow-blocks.ts";

describe("nextPollAt", () => {
  const due = 10_000;
  const block = 2_000;
  const close = 40;

  it("probes a quarter block, an eighth, a sixteenth and a thirty-second before the block, then polls from it on", () => {
    const polls: number[] = [];
    let now = due - 1_500;
    while (now < due + 3 * close) {
      now = nextPollAt(now, due, block, close);
      polls.push(now - due);
    }
    expect(polls.slice(0, 6)).toEqual([-500, -250, -125, -62.5, 0, 40]);
  });

  it("never polls in the past, and never sooner than a short poll once the block is due", () => {
    expect(nextPollAt(due + 5, due, block, close)).toBe(due + 45);
    expect(nextPollAt(due - 10, due, block, close)).toBe(due + 30);
    expect(nextPollAt(due - 100, due, block, close)).toBe(due - 62.5);
  });

  it("has no probes to make when the block time is short beside a poll", () => {
    expect(nextPollAt(due - 500, due, 100, close)).toBe(due);
  });
});
