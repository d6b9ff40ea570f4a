// Lambda entry point of the registration queue's consumer (SQS batches, partial batch responses).
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";
import { handleBatch } from "../src/workers/queue-consumer.ts";
import { processRegistrationMessage } from "../src/registration/process.ts";

const services = traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));

async function handle(event: SQSEvent): Promise<SQSBatchResponse> {
  const messages = event.Records.map((r) => ({ id: r.messageId, body: r.body, receiptHandle: r.receiptHandle, receiveCount: Number(r.attributes.ApproximateReceiveCount) }));
  const { failedIds } = await handleBatch(messages, (m) => processRegistrationMessage(services, m.body), services.logger);
  return { batchItemFailures: failedIds.map((itemIdentifier) => ({ itemIdentifier })) };
}

export const handler = traced("registration-worker", handle);
