// The error of a contract read that did not get an answer (the node unreachable, a timeout, a
// malformed reply). A read the contract answered is never this error: its answer is the result.
export class ChainReadError extends Error {
  constructor(readonly action: string, options: { cause: unknown }) {
    super(`${action}: the chain did not answer`, options);
    this.name = "ChainReadError";
  }
}
