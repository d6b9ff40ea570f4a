// Bounded in-process caches of data that never changes under its key (an agent's alias, a sealed blob
// named after its own key, an agent's logic). Entries are kept per owner, the client they were read
// with, so two sets of services in one process (tests, the benchmarks) never see each other's entries;
// when a cache is full, its oldest entry makes room.
export interface ProcessCache<V> {
  get(owner: object, key: string): V | undefined;
  set(owner: object, key: string, value: V): void;
}

/** A cache of at most `max` entries per owner. */
export function processCache<V>(max: number): ProcessCache<V> {
  const byOwner = new WeakMap<object, Map<string, V>>();
  const entries = (owner: object) => {
    let map = byOwner.get(owner);
    if (!map) byOwner.set(owner, (map = new Map()));
    return map;
  };
  return {
    get: (owner, key) => byOwner.get(owner)?.get(key),
    set(owner, key, value) {
      const map = entries(owner);
      if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value!);
      map.set(key, value);
    },
  };
}
