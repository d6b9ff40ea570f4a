// The counter of dense charge references in `meta` (docs/design/data-model.md): `counter` /
// `charge_refs`, whose `next_ref` is the first reference no process has claimed. A process claims a
// block of references with one conditional update (charge-refs.ts hands them out).
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { isConditionalCheckFailure, type Tables } from "../../adapters/tables/dynamo.ts";

const KEY = { pk: "counter", sk: "charge_refs" } as const;

/** The first reference ever handed out: block 0 (references 0 to 255) is never used, so no run's
 * reference is zero, the value a missing one would read as. */
export const FIRST_CHARGE_REF = 256;
/** The last block start the counter hands out: references stay exact in a JavaScript number (and far
 * below 2^64, the contract's bound for references it marks in its bitmap). */
const LAST_BLOCK_START = Number.MAX_SAFE_INTEGER - 2 * 65_536;

/** The counter has run out of references (it never does in practice: 2^53 references). */
export class ChargeRefsExhaustedError extends Error {
  constructor() {
    super("the charge reference counter is exhausted");
    this.name = "ChargeRefsExhaustedError";
  }
}

/**
 * Claims the next block of `size` references (a power of two up to 65,536, so blocks stay aligned) and
 * returns its first reference. One atomic update: concurrent claims from any number of processes each
 * get a block of their own.
 */
export async function claimChargeRefBlock(tables: Tables, size: number): Promise<number> {
  if (!Number.isInteger(size) || size < 1 || size > 65_536 || (size & (size - 1)) !== 0) throw new RangeError("a block of charge references is a power of two up to 65,536");
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("meta"),
        Key: KEY,
        UpdateExpression: "SET next_ref = if_not_exists(next_ref, :first) + :size",
        // The counter only moves forward, and stops before references would stop being exact numbers.
        ConditionExpression: "attribute_not_exists(next_ref) OR next_ref <= :last",
        ExpressionAttributeValues: { ":first": FIRST_CHARGE_REF, ":size": size, ":last": LAST_BLOCK_START },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    const next = out.Attributes?.next_ref;
    if (typeof next !== "number" || !Number.isSafeInteger(next)) throw new Error("the charge reference counter returned no number");
    return next - size;
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new ChargeRefsExhaustedError();
    throw error;
  }
}
