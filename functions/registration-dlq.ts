// Lambda entry point of the registration dead-letter queue's consumer: fails the jobs whose manifest
// could not be processed.
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";
import { handleBatch } from "../src/workers/queue-consumer.ts";
import { failDeadLetter } from "../src/registration/process.ts";

const services = traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));

async function handle(event: SQSEvent): Promise<SQSBatchResponse> {
  const messages = event.Records.map((r) => ({ id: r.messageId, body: r.body, receiptHandle: r.receiptHandle, receiveCount: Number(r.attributes.ApproximateReceiveCount) }));
  const { failedIds } = await handleBatch(messages, (m) => failDeadLetter(services, m.body), services.logger);
  return { batchItemFailures: failedIds.map((itemIdentifier) => ({ itemIdentifier })) };
}

export const handler = traced("registration-dlq", handle);
