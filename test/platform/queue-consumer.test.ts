// The queue consumer against the real SQS emulator: success deletes, failure redelivers, and a
// message that keeps failing lands in the dead-letter queue.
import { afterEach, describe, expect, inject, it } from "vitest";
import { randomBytes } from "node:crypto";
import { SetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { createQueue, ensureRegistrationQueues } from "../../src/adapters/queue/sqs.ts";
import { startQueueConsumer, type QueueConsumer } from "../../src/workers/queue-consumer.ts";
import { createLogger } from "../../src/logger.ts";

const logger = createLogger("silent");
let consumer: QueueConsumer | undefined;
afterEach(async () => consumer?.stop());

async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("queue consumer", () => {
  it("handles each message and deletes it", async () => {
    const queue = createQueue({ region: "us-east-1", endpoint: inject("awsEndpoint") });
    const suffix = randomBytes(4).toString("hex");
    const { queueUrl } = await ensureRegistrationQueues(queue, { queue: `q-${suffix}`, dlq: `dlq-${suffix}` });
    const seen: string[] = [];
    consumer = startQueueConsumer({ queue, queueUrl, logger, waitSeconds: 1, handler: async (m) => void seen.push(m.body) });
    await Promise.all(["a", "b", "c"].map((body) => queue.send(queueUrl, body)));
    await waitFor(() => (seen.length === 3 ? true : undefined));
    expect(seen.sort()).toEqual(["a", "b", "c"]);
    await waitFor(async () => ((await queue.approximateCount(queueUrl)) === 0 ? true : undefined));
  });

  it("redelivers a failed message and moves it to the dead-letter queue after the last receive", async () => {
    const queue = createQueue({ region: "us-east-1", endpoint: inject("awsEndpoint") });
    const suffix = randomBytes(4).toString("hex");
    const { queueUrl, dlqUrl } = await ensureRegistrationQueues(queue, { queue: `q-${suffix}`, dlq: `dlq-${suffix}` }, 2);
    await queue.client.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: "1" } }));
    const receives: number[] = [];
    consumer = startQueueConsumer({
      queue, queueUrl, logger, waitSeconds: 1,
      handler: async (m) => {
        receives.push(m.receiveCount);
        throw new Error("validator crashed");
      },
    });
    await queue.send(queueUrl, "poison");
    const dead = await waitFor(async () => {
      const messages = await queue.receive(dlqUrl, { waitSeconds: 0 });
      return messages.length ? messages : undefined;
    });
    expect(dead[0]!.body).toBe("poison");
    expect(receives).toEqual([1, 2]);
  });
});
