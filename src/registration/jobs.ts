// Registration jobs in the `jobs` table. A job moves queued → completed or queued → failed, once:
// every transition is a conditional write on the status, so a redelivered message cannot complete a
// job twice or overwrite a failure.
import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";

export type JobStatus = "queued" | "completed" | "failed";

export interface JobResult {
  agent_id: string;
  listing_id: string;
  /** What the creator passes to createListing: the seed and the metadata URI. */
  listing_seed: `0x${string}`;
  metadata_uri: string;
}

export interface JobError {
  code: string;
  message: string;
  details?: { pointer: string; code: string; message: string }[];
}

export interface JobRecord {
  job_id: string;
  wallet: string;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  /** Blob key of the sealed manifest and its wrapped data key. */
  manifest_blob: string;
  manifest_key: string;
  result?: JobResult;
  error?: JobError;
  enqueued_at?: string;
}

export const newJobId = () => `job_${randomBytes(12).toString("hex")}`;
const key = (jobId: string) => ({ pk: `job#${jobId}`, sk: "job" });

export async function putQueuedJob(tables: Tables, job: Omit<JobRecord, "status" | "updated_at">): Promise<void> {
  await tables.doc.send(
    new PutCommand({
      TableName: tables.name("jobs"),
      Item: { ...key(job.job_id), ...job, status: "queued", updated_at: job.created_at, gsi1pk: "status#queued", gsi1sk: job.created_at },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
}

export async function getJob(tables: Tables, jobId: string): Promise<JobRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("jobs"), Key: key(jobId), ConsistentRead: true }));
  return (out.Item as JobRecord | undefined) ?? null;
}

/** queued → completed or failed. Returns false when the job had already left `queued`. */
export async function finishJob(tables: Tables, jobId: string, outcome: { status: "completed"; result: JobResult } | { status: "failed"; error: JobError }): Promise<boolean> {
  const now = new Date().toISOString();
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("jobs"),
        Key: key(jobId),
        UpdateExpression: `SET #status = :status, updated_at = :now, ${outcome.status === "completed" ? "#result = :outcome" : "#error = :outcome"} REMOVE gsi1pk, gsi1sk`,
        ConditionExpression: "#status = :queued",
        ExpressionAttributeNames: { "#status": "status", ...(outcome.status === "completed" ? { "#result": "result" } : { "#error": "error" }) },
        ExpressionAttributeValues: { ":status": outcome.status, ":now": now, ":queued": "queued", ":outcome": outcome.status === "completed" ? outcome.result : outcome.error },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** Jobs still queued that were created (or last enqueued) before `before`: the sweeper's work. */
export async function listStaleQueuedJobs(tables: Tables, before: Date, limit = 100): Promise<JobRecord[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("jobs"),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :q AND gsi1sk < :before",
      ExpressionAttributeValues: { ":q": "status#queued", ":before": before.toISOString() },
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as JobRecord[];
}

/** Records a re-enqueue and moves the job's place in the sweeper's index to now. */
export async function markEnqueued(tables: Tables, jobId: string): Promise<void> {
  const now = new Date().toISOString();
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("jobs"),
        Key: key(jobId),
        UpdateExpression: "SET enqueued_at = :now, gsi1sk = :now",
        ConditionExpression: "#status = :queued",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":now": now, ":queued": "queued" },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
}
