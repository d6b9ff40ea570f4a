// The batcher's intake: receivers that take charge messages off the settlement queue while the settler
// takes charges, and a keeper that keeps the messages of the charges it holds hidden from every other
// settler (a message held past its visibility timeout would be handed to another).
import type { QueueMessage } from "../../adapters/queue/sqs.ts";
import { SETTLEMENT_VISIBILITY_SECONDS } from "../../adapters/queue/sqs.ts";
import type { Batcher } from "./batcher.ts";
import { message, sleep, type PassContext } from "./context.ts";

/** Charges held in memory at most (received, not yet decided): four full batches. */
const MAX_HELD_BATCHES = 4;

export interface Intake {
  /** Whether the queue was last seen empty with no receive in flight (a drain's end). */
  idle(): boolean;
  /** Settles once the receivers and the keeper have stopped. */
  done: Promise<unknown>;
}

export interface IntakeOptions {
  queueUrl: string;
  /** One receiver that never waits (one pass: "the queue was empty" is true when it says so). */
  drain: boolean;
  /** Stops taking charges (what arrives after goes straight back). */
  intake: AbortSignal;
  /** Stops the keeper (the settler is done). */
  halt: AbortSignal;
}

/**
 * Starts receiving into `batcher`.
 *
 * @example
 * const intake = startIntake(context, batcher, { queueUrl, drain: false, intake: intake.signal, halt: halt.signal });
 */
export function startIntake(context: PassContext, batcher: Batcher, options: IntakeOptions): Intake {
  const { queue, logger, config } = context.services;
  const { queueUrl } = options;
  let receiving = 0;
  let queueEmpty = false;

  const receive = async (signal: AbortSignal): Promise<"stop" | void> => {
    // A receive is never cut short: the queue would hide what it handed to a request nobody reads for
    // the whole visibility timeout. What arrives once intake has stopped goes straight back.
    receiving++;
    const messages: QueueMessage[] = await queue.receive(queueUrl, { max: 10, waitSeconds: options.drain ? 0 : 1 }).finally(() => receiving--);
    if (signal.aborted) {
      if (messages.length) await queue.changeVisibility(queueUrl, messages, 0).catch(() => undefined);
      return "stop";
    }
    if (messages.length === 0) {
      queueEmpty = true;
      if (options.drain) await sleep(50, signal);
      return;
    }
    queueEmpty = false;
    for (const m of messages) await batcher.accept(m);
    context.wake();
  };

  const receivers = Array.from({ length: options.drain ? 1 : (context.options.receivers ?? 4) }, async () => {
    while (!options.intake.aborted) {
      if (batcher.held() >= MAX_HELD_BATCHES * config.SETTLER_MAX_BATCH) {
        await sleep(50, options.intake);
        continue;
      }
      try {
        if ((await receive(options.intake)) === "stop") break;
      } catch (error) {
        if (options.intake.aborted) break;
        logger.warn("settlement queue receive failed; retried", { cause: message(error) });
        await sleep(1_000, options.intake);
      }
    }
  });

  const keeper = (async () => {
    while (!options.halt.aborted) {
      await sleep((SETTLEMENT_VISIBILITY_SECONDS * 1000) / 3, options.halt);
      if (options.halt.aborted) break;
      const held = batcher.messages();
      if (held.length) await queue.changeVisibility(queueUrl, held, SETTLEMENT_VISIBILITY_SECONDS).catch(() => undefined);
    }
  })();

  return {
    idle: () => queueEmpty && receiving === 0,
    done: Promise.allSettled([...receivers, keeper]),
  };
}
