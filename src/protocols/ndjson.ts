// Newline-delimited JSON framing: one JSON document per line, "\n" between them. The wire format
// between a sandbox and the service (the local sandbox's fd 3, the cloud runner's response stream; see
// runner.ts); both sandbox adapters read it with `ndjsonLines` and the runner writes it with `ndjsonLine`.
// (The local sandbox's bootstrap.cjs keeps a reader and a writer of its own: it is CommonJS, loaded
// before anything else, and cannot import this ES module without the cost it exists to avoid.)

/** One message as a line. Throws as JSON.stringify does (a value that is not JSON). */
export function ndjsonLine(message: unknown): string {
  return JSON.stringify(message) + "\n";
}

export interface NdjsonLines {
  /** Feeds the next chunk of bytes and delivers every line it completes, without its "\n". Returns false
   * when the unfinished line has grown past the bound: the stream is not this protocol, abandon it. */
  push(chunk: Uint8Array): boolean;
}

/** Splits a byte stream into lines for `onLine`; a line may span any number of chunks, up to
 * `maxLineBytes` while unfinished. */
export function ndjsonLines(onLine: (line: Uint8Array) => void, maxLineBytes: number): NdjsonLines {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  return {
    push(chunk) {
      let start = 0;
      for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, end);
        onLine(pendingBytes ? concat([...pending, piece], pendingBytes + piece.byteLength) : piece);
        pending = [];
        pendingBytes = 0;
        start = end + 1;
      }
      if (start < chunk.byteLength) {
        // Copied: the caller may reuse the chunk's memory once push returns.
        pending.push(chunk.slice(start));
        pendingBytes += chunk.byteLength - start;
        if (pendingBytes > maxLineBytes) return false;
      }
      return true;
    },
  };
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
