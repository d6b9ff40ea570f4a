// Registration jobs in the `jobs` table. A job moves queued → completed or queued → failed, once:
// every transition is a conditional write on the status, so a redelivered message cannot complete a
// job twice or overwrite a failure.
import { randomBytes } from "node:crypto";
import type { JobStatus } from "@agent-rental/core/vocabulary";

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

// Stored by job.store.ts (table `jobs`); re-exported here, where the job's life is described.
export { putQueuedJob, getJob, finishJob, listStaleQueuedJobs, markEnqueued } from "./job.store.ts";
