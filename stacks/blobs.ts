// S3: content-addressed blobs (listing metadata, encrypted agent logic). Private: the API serves
// what is public; nothing is read from the bucket directly.

export function createBlobs() {
  // No `access` option: the bucket stays private, behind SST's public access block.
  // Production keeps it on removal through the app's `removal: "retain"`.
  // No CORS either: browsers never talk to the bucket.
  return new sst.aws.Bucket("Blobs", { enforceHttps: true, cors: false });
}
