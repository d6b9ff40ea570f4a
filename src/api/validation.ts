// The one validation hook: a request that fails its route's zod schema gets 400 invalid_request,
// naming each offending field.
import type { ZodError } from "zod";
import { ApiError } from "../errors.ts";

export function describeIssues(error: ZodError, target: string): string {
  const problems = error.issues.slice(0, 10).map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : target === "json" ? "body" : target;
    return `${where}: ${issue.message}`;
  });
  return `Invalid ${target === "json" ? "request body" : target}: ${problems.join("; ")}`;
}

export function validationHook(result: { success: boolean; error?: ZodError; target: string }): void {
  if (!result.success && result.error) throw new ApiError("invalid_request", describeIssues(result.error, result.target));
}
