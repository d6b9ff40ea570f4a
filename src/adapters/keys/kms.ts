// The cloud master key: AWS KMS GenerateDataKey / Decrypt, with the context as KMS encryption context.
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from "@aws-sdk/client-kms";
import type { KeyWrapper } from "./port.ts";

export function createKmsKeyWrapper(options: { keyId: string; region: string }): KeyWrapper {
  const kms = new KMSClient({ region: options.region });
  return {
    async generateDataKey(context) {
      const out = await kms.send(new GenerateDataKeyCommand({ KeyId: options.keyId, KeySpec: "AES_256", EncryptionContext: context }));
      return { plaintext: out.Plaintext!, wrapped: `kms:v1:${Buffer.from(out.CiphertextBlob!).toString("base64")}` };
    },
    async unwrap(wrapped, context) {
      if (!wrapped.startsWith("kms:v1:")) throw new Error("not a KMS-wrapped key");
      const out = await kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(wrapped.slice("kms:v1:".length), "base64"), EncryptionContext: context, KeyId: options.keyId }));
      return out.Plaintext!;
    },
  };
}
