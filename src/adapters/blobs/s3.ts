// The blobs port's adapter: S3 in the cloud, the same client against the local emulator, which keeps
// objects as files on disk. Holds content-addressed public metadata and encrypted agent logic.
import { CreateBucketCommand, GetObjectCommand, HeadBucketCommand, NoSuchKey, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";

export interface BlobsOptions {
  region: string;
  bucket: string;
  endpoint?: string;
}

export interface Blobs {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Uint8Array | null>;
}

export function createBlobs(options: BlobsOptions): Blobs & { client: S3Client } {
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint
      ? { endpoint: options.endpoint, forcePathStyle: true, credentials: { accessKeyId: "local", secretAccessKey: "local" } }
      : {}),
  });
  return {
    client,
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: body, ContentType: contentType }));
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: key }));
        return out.Body ? await out.Body.transformToByteArray() : null;
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return null;
        throw error;
      }
    },
  };
}

/** Creates the bucket when missing (local stack and tests). */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}
