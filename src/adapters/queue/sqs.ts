// The queue port's adapter: SQS in the cloud, the same client against the local emulator (fauxqs).
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
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
  receive(queueUrl: string, options?: { max?: number; waitSeconds?: number; signal?: AbortSignal }): Promise<QueueMessage[]>;
  delete(queueUrl: string, receiptHandle: string): Promise<void>;
  approximateCount(queueUrl: string): Promise<number>;
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
    async receive(queueUrl, opts = {}) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: opts.max ?? 10,
          WaitTimeSeconds: opts.waitSeconds ?? 0,
          MessageSystemAttributeNames: ["ApproximateReceiveCount"],
        }),
        opts.signal ? { abortSignal: opts.signal } : {},
      );
      return (out.Messages ?? []).map(toQueueMessage);
    },
    async delete(queueUrl, receiptHandle) {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
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
