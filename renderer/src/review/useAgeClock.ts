// The clock for "12s ago" labels, ticking as often as they change: every second while one of them
// counts seconds, every half minute once all count minutes (a 10 s tick left "3s ago" standing
// for ten seconds, and looked frozen).
import { useNow } from '../ui/useNow.ts';

export function useAgeClock(times: readonly number[]): number {
  const youngest = times.length === 0 ? null : Math.max(...times);
  const seconds = youngest !== null && Date.now() - youngest < 60_000;
  return useNow(seconds ? 1000 : 30_000);
}
