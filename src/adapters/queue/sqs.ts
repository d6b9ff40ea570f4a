// The queue port's adapter: SQS in the cloud, the same client against the local emulator (fauxqs).
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from "@aws-sdk/client-sqs";

export interface QueueOptions {
  region: string;
  /** The local emulator's URL; absent in the cloud. */
  endpoint?: string;
}

export interface QueueMessage {
  id: string;
  body: string;
  receiptHandle: string;
  /** How many times the message has been received, this time included. */
  receiveCount: number;
}

export interface Queue {
  readonly client: SQSClient;
  send(queueUrl: string, body: string): Promise<string>;
  /** Sends many messages, ten per request; returns how many the queue refused. */
  sendMany(queueUrl: string, bodies: readonly string[]): Promise<number>;
  /** `visibilitySeconds`: how long the messages stay hidden from other receivers (default: the queue's). */
  receive(queueUrl: string, options?: { max?: number; waitSeconds?: number; signal?: AbortSignal; visibilitySeconds?: number }): Promise<QueueMessage[]>;
  delete(queueUrl: string, receiptHandle: string): Promise<void>;
  /** Deletes many messages, ten per request (SQS's batch limit); returns the ids it could not delete. */
  deleteMany(queueUrl: string, messages: readonly Pick<QueueMessage, "id" | "receiptHandle">[]): Promise<string[]>;
  /** Hides many messages for `seconds` more (0: visible again at once), ten per request; returns the ids
   * it could not change (a message deleted or received by another since). */
  changeVisibility(queueUrl: string, messages: readonly Pick<QueueMessage, "id" | "receiptHandle">[], seconds: number): Promise<string[]>;
  approximateCount(queueUrl: string): Promise<number>;
}

/** SQS's limit on entries per batch request. */
const SQS_BATCH = 10;

function tens<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += SQS_BATCH) chunks.push(items.slice(i, i + SQS_BATCH));
  return chunks;
}

export function createQueue(options: QueueOptions): Queue {
  const client = new SQSClient({
    region: options.region,
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } }
      : {}),
  });
  return {
    client,
    async send(queueUrl, body) {
      const out = await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      return out.MessageId ?? "";
    },
    async sendMany(queueUrl, bodies) {
      const refused = await Promise.all(
        tens(bodies).map(async (chunk) => {
          const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((body, i) => ({ Id: String(i), MessageBody: body })) }));
          return out.Failed?.length ?? 0;
        }),
      );
      return refused.reduce((a, b) => a + b, 0);
    },
    async receive(queueUrl, opts = {}) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: opts.max ?? 10,
          WaitTimeSeconds: opts.waitSeconds ?? 0,
          ...(opts.visibilitySeconds === undefined ? {} : { VisibilityTimeout: opts.visibilitySeconds }),
          MessageSystemAttributeNames: ["ApproximateReceiveCount"],
        }),
        opts.signal ? { abortSignal: opts.signal } : {},
      );
      return (out.Messages ?? []).map(toQueueMessage);
    },
    async delete(queueUrl, receiptHandle) {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
    },
    async deleteMany(queueUrl, messages) {
      const failed = await Promise.all(
        tens(messages).map(async (chunk) => {
          const out = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((m, i) => ({ Id: String(i), ReceiptHandle: m.receiptHandle })) }));
          return (out.Failed ?? []).map((f) => chunk[Number(f.Id)]!.id);
        }),
      );
      return failed.flat();
    },
    async changeVisibility(queueUrl, messages, seconds) {
      const failed = await Promise.all(
        tens(messages).map(async (chunk) => {
          const out = await client.send(
            new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((m, i) => ({ Id: String(i), ReceiptHandle: m.receiptHandle, VisibilityTimeout: seconds })) }),
          );
          return (out.Failed ?? []).map((f) => chunk[Number(f.Id)]!.id);
        }),
      );
      return failed.flat();
    },
    async approximateCount(queueUrl) {
      const out = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }),
      );
      return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    },
  };
}

function toQueueMessage(message: Message): QueueMessage {
  return {
    id: message.MessageId ?? "",
    body: message.Body ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
  };
}

/** How long a charge the settler received stays hidden from another settler: longer than a batch takes to
 * land (the settler extends it while it waits), short enough that a settler that died hands its charges
 * to the next one soon. */
export const SETTLEMENT_VISIBILITY_SECONDS = 30;
/** Charges wait in the queue through the longest outage SQS allows (14 days). */
const SETTLEMENT_RETENTION_SECONDS = 14 * 24 * 60 * 60;

/** Creates the settlement queue (local stack and tests; the cloud's comes from stacks/settlement.ts with
 * the same settings). No dead-letter queue: the settler deletes a message only once its charge is
 * decided (charged, refused, or unreadable and logged), so nothing fails forever. Idempotent. */
export async function ensureSettlementQueue(queue: Queue, name: string, visibilitySeconds = SETTLEMENT_VISIBILITY_SECONDS): Promise<string> {
  const out = await queue.client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: String(visibilitySeconds), MessageRetentionPeriod: String(SETTLEMENT_RETENTION_SECONDS) } }),
  );
  return out.QueueUrl!;
}

export interface RegistrationQueues {
  queueUrl: string;
  dlqUrl: string;
}

/** Creates the registration queue and its dead-letter queue (local stack and tests; the cloud's come
 * from stacks/queue.ts with the same settings). Idempotent. */
export async function ensureRegistrationQueues(queue: Queue, names: { queue: string; dlq: string }, maxReceiveCount = 5): Promise<RegistrationQueues> {
  const dlq = await queue.client.send(new CreateQueueCommand({ QueueName: names.dlq, Attributes: { MessageRetentionPeriod: "1209600" } }));
  const dlqAttributes = await queue.client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ["QueueArn"] }));
  const main = await queue.client.send(
    new CreateQueueCommand({
      QueueName: names.queue,
      Attributes: {
        VisibilityTimeout: "60",
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqAttributes.Attributes!.QueueArn, maxReceiveCount }),
      },
    }),
  );
  return { queueUrl: main.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}
