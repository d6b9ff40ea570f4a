// The manifest validator (src/registration) is shared with the server, so the editor's messages are
// the server's. Its pattern-safety check (recheck, in a worker thread) runs on the server only; these
// stand-ins let the module load in a browser, where that check is never called.
export function createRequire(): (id: string) => never {
  return (id: string) => {
    throw new Error(`${id} is not available in the browser`);
  };
}
