// Schemas shared by the ERC-8004 routes: the unsigned transaction a wallet sends.
import { z } from "@hono/zod-openapi";

export const UnsignedTransactionSchema = z
  .object({
    to: z.string().regex(/^0x[0-9a-fA-F]{40}$/).openapi({ description: "The registry to send it to" }),
    data: z.string().regex(/^0x[0-9a-f]*$/).openapi({ description: "The call data" }),
  })
  .openapi("UnsignedTransaction", { description: "A transaction for the caller's wallet to sign and send (no value, no gas fields: the wallet fills those)" });
