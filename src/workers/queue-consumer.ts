// Runs a queue's messages through a handler. In the cloud, Lambda's SQS event source does the polling
// and `handleBatch` does the rest; locally, `startQueueConsumer` long-polls the emulator with the same
// handler. A message is deleted only after its handler succeeds; a failure leaves it to reappear after
// the visibility timeout, and the queue's redrive policy moves it to the dead-letter queue after the
// configured number of receives.
import type { Queue, QueueMessage } from "../adapters/queue/sqs.ts";
import type { Logger } from "../logger.ts";

export type MessageHandler = (message: QueueMessage) => Promise<void>;

export interface BatchResult {
  /** Ids of the messages whose handler failed (SQS partial batch response). */
  failedIds: string[];
}

/** Handles a batch concurrently and reports the failures without throwing. */
export async function handleBatch(messages: QueueMessage[], handler: MessageHandler, logger: Logger): Promise<BatchResult> {
  const results = await Promise.allSettled(messages.map((message) => handler(message)));
  const failedIds: string[] = [];
  results.forEach((result, index) => {
    if (result.status === "rejected") {
      const message = messages[index]!;
      failedIds.push(message.id);
      logger.warn("queue message failed", {
        message_id: message.id,
        receive_count: message.receiveCount,
        cause: result.reason instanceof Error ? result.reason.message : String(result.reason),
      });
    }
  });
  return { failedIds };
}

export interface QueueConsumer {
  stop(): Promise<void>;
}

export interface QueueConsumerOptions {
  queue: Queue;
  queueUrl: string;
  handler: MessageHandler;
  logger: Logger;
  /** Long-poll wait per receive, in seconds (the stop waits for at most one). */
  waitSeconds?: number;
  batchSize?: number;
}

/**
 * Receives one batch (waiting up to `waitSeconds` for it), handles it, and deletes the messages whose
 * handler succeeded. Returns how many were received and how many failed (they reappear after the
 * visibility timeout).
 */
export async function consumeBatch(options: QueueConsumerOptions, signal?: AbortSignal): Promise<{ received: number; failed: number }> {
  const messages = await options.queue.receive(options.queueUrl, {
    max: options.batchSize ?? 10,
    waitSeconds: options.waitSeconds ?? 5,
    ...(signal ? { signal } : {}),
  });
  if (messages.length === 0) return { received: 0, failed: 0 };
  const outcome = await handleBatch(messages, options.handler, options.logger);
  const failed = new Set(outcome.failedIds);
  await Promise.all(messages.filter((m) => !failed.has(m.id)).map((m) => options.queue.delete(options.queueUrl, m.receiptHandle)));
  return { received: messages.length, failed: failed.size };
}

/** Long-polls a queue until stopped. */
export function startQueueConsumer(options: QueueConsumerOptions): QueueConsumer {
  const abort = new AbortController();
  let backoffMs = 0;
  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        await consumeBatch(options, abort.signal);
        backoffMs = 0;
      } catch (error) {
        if (abort.signal.aborted) break;
        // The queue is unreachable: back off (up to 5 s) rather than spin.
        backoffMs = Math.min(5_000, backoffMs ? backoffMs * 2 : 100);
        options.logger.warn("queue receive failed", { queue_url: options.queueUrl, retry_in_ms: backoffMs, cause: error instanceof Error ? error.message : String(error) });
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
