// See node-module.ts: the server-only pattern check is never started in a browser.
export class Worker {
  constructor() {
    throw new Error("worker threads are not available in the browser");
  }
}
