// The credentials index's store is credential.store.ts; this name stays for its existing importers.
export * from "./credential.store.ts";
