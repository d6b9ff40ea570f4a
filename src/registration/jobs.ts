// Registration jobs in the `jobs` table. A job moves queued → completed or queued → failed, once:
// every transition is a conditional write on the status, so a redelivered message cannot complete a
// job twice or overwrite a failure.
import { randomBytes } from "node:crypto";

// The job record and its parts are the store's (job.store.ts); the pipeline names them from here.
export type { JobError, JobRecord, JobResult } from "./job.store.ts";

export const newJobId = () => `job_${randomBytes(12).toString("hex")}`;

// Stored by job.store.ts (table `jobs`); re-exported here, where the job's life is described.
export { putQueuedJob, getJob, finishJob, listStaleQueuedJobs, markEnqueued } from "./job.store.ts";
