// Tracing with Powertools for AWS Lambda's Tracer (X-Ray). On Lambda with active tracing, each handler
// invocation gets a `## <name>` subsegment annotated with the cold start and the service, and the AWS
// SDK clients (DynamoDB, SQS) record a subsegment per call. Off Lambda the Tracer disables itself
// (no AWS_EXECUTION_ENV): every call below is then a no-op, so the local stack and the tests never need
// an X-Ray daemon.
import { Tracer } from "@aws-lambda-powertools/tracer";
import { markWarm } from "../logger.ts";
import type { Ports } from "../ports.ts";

export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? process.env.SERVICE_NAME ?? "agents" });

/** Records the service's DynamoDB and SQS calls as X-Ray subsegments (no-op off Lambda). The document
 * client shares the raw client's middleware stack, so capturing the raw client covers both. */
export function traceClients<S extends Pick<Ports, "tables" | "queue">>(services: S): S {
  tracer.captureAWSv3Client(services.tables.raw);
  tracer.captureAWSv3Client(services.queue.client);
  return services;
}

/**
 * Wraps a Lambda handler: a `## name` subsegment around each invocation, errors recorded on it, and the
 * logger's cold_start flag cleared after the first invocation.
 *
 * @example
 * export const handler = traced("api", handle(app));
 */
export function traced<A extends unknown[], R>(name: string, handler: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const segment = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
    const subsegment = segment?.addNewSubsegment(`## ${name}`);
    if (subsegment) {
      tracer.setSegment(subsegment);
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
    }
    try {
      return await handler(...args);
    } catch (error) {
      if (subsegment) tracer.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      if (subsegment && segment) {
        subsegment.close();
        tracer.setSegment(segment);
      }
      markWarm();
    }
  };
}
