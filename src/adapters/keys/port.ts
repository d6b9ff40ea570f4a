// Envelope encryption: each listing's secrets and logic are encrypted with a data key of their own,
// and only the data key, wrapped by a master key (KMS in the cloud, the local key file locally), is
// stored beside them.
export interface DataKey {
  /** The 32-byte AES key; held in memory only while it is used. */
  plaintext: Uint8Array;
  /** The data key wrapped by the master key; safe to store. */
  wrapped: string;
}

export interface KeyWrapper {
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  unwrap(wrapped: string, context: Record<string, string>): Promise<Uint8Array>;
}
