// Says, while a read waits out a 429 (api/rate-limit.ts), that the page is waiting and when it asks
// again; gone once the answer comes.
import { useEffect, useState, useSyncExternalStore } from "react";
import { useQueryClient, type QueryCache } from "@tanstack/react-query";
import { isRateLimited, rateLimitWaitMs } from "../api/rate-limit.ts";

/** Per query waiting out a 429: when it asks again (ms since the epoch). */
const waiting = new Map<string, number>();

function subscribe(cache: QueryCache, notify: () => void): () => void {
  return cache.subscribe((event) => {
    if (event.type !== "updated" && event.type !== "removed") return;
    const { query } = event;
    const state = query.state;
    const before = waiting.get(query.queryHash);
    if (event.type === "updated" && event.action.type === "failed" && isRateLimited(event.action.error)) {
      waiting.set(query.queryHash, Date.now() + rateLimitWaitMs(event.action.error));
    } else if (event.type === "removed" || state.fetchStatus !== "fetching" || !isRateLimited(state.fetchFailureReason)) {
      waiting.delete(query.queryHash);
    }
    if (waiting.get(query.queryHash) !== before) notify();
  });
}

/** The moment the earliest waiting read asks again, or null when none waits. */
function earliest(): number | null {
  let until: number | null = null;
  for (const at of waiting.values()) until = until === null ? at : Math.min(until, at);
  return until;
}

export function RateLimitBanner() {
  const cache = useQueryClient().getQueryCache();
  const until = useSyncExternalStore((notify) => subscribe(cache, notify), earliest);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  if (until === null) return null;
  const seconds = Math.max(0, Math.ceil((until - now) / 1000));
  return (
    <div className="notice notice-warn" role="status" data-testid="rate-limit-wait">
      The service asked this page to slow down: {seconds > 0 ? `trying again in ${seconds} s` : "trying again now"}…
    </div>
  );
}
