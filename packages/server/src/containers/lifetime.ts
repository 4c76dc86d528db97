/** Spec: The container, Lifetime. */
export const CONTAINER_IDLE_MS = 30 * 60 * 1000
export const CONTAINER_MAX_LIFETIME_MS = 24 * 60 * 60 * 1000
/** How often the reaper looks for expired containers. */
export const REAP_INTERVAL_MS = 60 * 1000

export interface Lifetime {
  /** Removed when unused this long. */
  idleMs: number
  /** Removed this long after creation, used or not. */
  maxMs: number
}

/** When a container goes: the earlier of idle expiry and the absolute lifetime. */
export function expiresAt(lifetime: Lifetime, createdAt: number, lastUsedAt: number): number {
  return Math.min(lastUsedAt + lifetime.idleMs, createdAt + lifetime.maxMs)
}
