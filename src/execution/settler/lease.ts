// One sender per authority key. Every settler that starts (the local stack's job, a cloud invocation, a
// second process by mistake) asks for the key's lease; only its holder sends. The holder renews it with
// every block it sees and gives it up when it stops; a holder that died stops renewing, and the next
// settler takes the lease over once it expires. A settler that starts while another holds the lease
// waits only when the holder means to stop soon (`ends_at`: a cloud invocation nearing its deadline),
// so a successor is ready the moment the lease is given up; otherwise it leaves at once. The protocol is
// apart from its store (lease.store.ts), and unit-tested against an in-memory one.
import { sleep } from "./context.ts";

export interface LeaseRecord {
  owner: string;
  /** Counts the times the lease changed hands: a holder renews only the lease it took. */
  token: number;
  /** Milliseconds since the epoch after which another may take the lease. */
  expires_at: number;
  /** When the holder means to give the lease up (milliseconds since the epoch; 0: no planned end). */
  ends_at: number;
}

export interface LeaseStore {
  read(): Promise<LeaseRecord | null>;
  /** Takes the lease when free, expired or already `owner`'s; null when another holds it. */
  take(owner: string, now: number, ttlMs: number, endsAt: number): Promise<LeaseRecord | null>;
  /** False when `owner` no longer holds the lease it took (`token`). */
  renew(owner: string, token: number, now: number, ttlMs: number, endsAt: number): Promise<boolean>;
  release(owner: string, token: number): Promise<boolean>;
}

export interface SettlerLease {
  /** The held lease's token (undefined while not held). */
  readonly token: number | undefined;
  /**
   * Takes the lease, meaning to give it up at `endsAt` (0: no planned end). When another holds it:
   * waits for it while it comes free within `waitForEndMs` (and before `deadline`), else answers false.
   */
  acquire(options: { endsAt: number; deadline: number; waitForEndMs: number; signal?: AbortSignal }): Promise<boolean>;
  /** Renews the lease; false when it was lost (another took it over): the caller must stop sending. */
  renew(endsAt: number): Promise<boolean>;
  release(): Promise<void>;
}

/** How often a waiting successor looks at the lease once it is due to come free (and at most a second
 * apart before that). */
export const LEASE_POLL_MS = 100;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * @example
 * const lease = createSettlerLease(settlerLeaseStore(tables, authority), { owner: "settler-1", ttlMs: 15_000 });
 * if (await lease.acquire({ endsAt: deadline, deadline, waitForEndMs: 70_000 })) { ... await lease.release(); }
 */
export function createSettlerLease(store: LeaseStore, options: { owner: string; ttlMs: number; now?: () => number }): SettlerLease {
  const now = options.now ?? Date.now;
  let token: number | undefined;
  return {
    get token() {
      return token;
    },
    async acquire({ endsAt, deadline, waitForEndMs, signal }) {
      for (;;) {
        const taken = await store.take(options.owner, now(), options.ttlMs, endsAt);
        if (taken) {
          token = taken.token;
          return true;
        }
        const held = await store.read();
        // The holder stops (or is given up for dead) at the earlier of its end and its lease's expiry.
        const freeAt = held ? Math.min(held.ends_at || held.expires_at, held.expires_at) : now();
        if (signal?.aborted || now() >= deadline || freeAt - now() > waitForEndMs) return false;
        await pause(Math.min(1_000, Math.max(LEASE_POLL_MS, freeAt - now()), Math.max(0, deadline - now())), signal);
      }
    },
    async renew(endsAt) {
      if (token === undefined) return false;
      const renewed = await store.renew(options.owner, token, now(), options.ttlMs, endsAt);
      if (!renewed) token = undefined;
      return renewed;
    },
    async release() {
      if (token === undefined) return;
      const held = token;
      token = undefined;
      await store.release(options.owner, held);
    },
  };
}

/** A lease store in memory with the emulator's semantics (tests of the protocol). */
export function memoryLeaseStore(): LeaseStore & { record: LeaseRecord | null } {
  const state: { record: LeaseRecord | null } = { record: null };
  return {
    get record() {
      return state.record;
    },
    async read() {
      return state.record && { ...state.record };
    },
    async take(owner, at, ttlMs, endsAt) {
      const r = state.record;
      if (r && !(r.expires_at < at || r.owner === owner)) return null;
      state.record = { owner, token: (r?.token ?? 0) + 1, expires_at: at + ttlMs, ends_at: endsAt };
      return { ...state.record };
    },
    async renew(owner, token, at, ttlMs, endsAt) {
      const r = state.record;
      if (!r || r.owner !== owner || r.token !== token) return false;
      state.record = { ...r, expires_at: at + ttlMs, ends_at: endsAt };
      return true;
    },
    async release(owner, token) {
      const r = state.record;
      if (!r || r.owner !== owner || r.token !== token) return false;
      state.record = { ...r, expires_at: 0, ends_at: 0 };
      return true;
    },
  };
}

/** A held lease kept renewed while its settler runs. */
export interface LeaseKeeper {
  /** Whether the lease is surely still this settler's: renewed within two thirds of its length. The
   * settler sends only while it is. */
  fresh(): boolean;
  /** Settles once the keeper stops (`signal` aborted). */
  done: Promise<void>;
}

export interface KeepLeaseOptions {
  /** When the holder means to give the lease up (0: no planned end). */
  endsAt: number;
  ttlMs: number;
  /** Stops the renewals. */
  signal: AbortSignal;
  /** The lease was taken over by another settler: the holder must stop sending. */
  onLost(): void;
  /** Says what happened to a renewal worth an operator's eye (lost, or storage not answering). */
  onProblem(problem: "lost" | "unrenewed"): void;
}

/**
 * Renews `lease` on a clock of its own (a chain that mines per transaction has no blocks while idle):
 * every third of the lease, every second while storage does not answer. A renewal that cannot reach
 * storage is not a loss, but the lease may run out meanwhile and another settler take it: `fresh()`
 * turns false once the last renewal is two thirds of the lease old, so the holder holds its charges
 * until storage answers again. A refusal (another settler took the lease over) calls `onLost`.
 *
 * @example
 * const keeper = keepLease(lease, { endsAt, ttlMs: 15_000, signal: halt.signal, onLost: stopAll, onProblem });
 * if (keeper.fresh()) await send();
 */
export function keepLease(lease: SettlerLease, options: KeepLeaseOptions): LeaseKeeper {
  let renewedAt = Date.now();
  const fresh = () => Date.now() - renewedAt < (2 * options.ttlMs) / 3;
  const done = (async () => {
    let failing = false;
    while (!options.signal.aborted) {
      await sleep(failing ? 1_000 : options.ttlMs / 3, options.signal);
      if (options.signal.aborted) break;
      const renewed = await lease.renew(options.endsAt).then(
        (held) => held,
        () => undefined,
      );
      failing = renewed === undefined;
      if (renewed === true) renewedAt = Date.now();
      if (renewed === false) {
        options.onProblem("lost");
        options.onLost();
      }
      if (renewed === undefined && !fresh()) options.onProblem("unrenewed");
    }
  })();
  return { fresh, done };
}
