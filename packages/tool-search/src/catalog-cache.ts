// One index per distinct catalog, reused across requests: keyed by a hash of the definitions,
// bounded by count and by estimated bytes, least recently used out. Within a scope (a workspace),
// a catalog is found by a cheap fingerprint instead, checked against the full hash in the
// background (see `catalog`).
import { catalogFingerprint, hashCatalog, hashCatalogInSteps } from './catalog-key.js'
import { defaultEmbedder } from './embedders/default.js'
import { KeywordIndex } from './keyword/keyword-index.js'
import { buildSemanticRanker } from './semantic/index.js'
import type { Embedder, SearchHit, SearchOptions, ToolDocument } from './types.js'

export interface ToolSearchOptions {
  /** Embeds tools and queries for `semantic` mode; the embedded offline default when left out. */
  embedder?: Embedder
  /** Most catalogs kept (default 64). */
  maxCatalogs?: number
  /** Most estimated bytes kept over all catalogs (default 512 MiB). */
  maxBytes?: number
  /**
   * Least time between two background checks of one scoped fingerprint against the full hash
   * (default 10 s); 0 checks after every lookup.
   */
  checkIntervalMs?: number
}

export interface CatalogOptions {
  /**
   * Who is asking (an org and workspace, say). With a scope the catalog is found by a cheap
   * fingerprint, which one scope can never use to reach another's; without one, by the full hash.
   */
  scope?: string
}

export interface Catalog {
  readonly key: string
  readonly size: number
  search(query: string, options: SearchOptions): Promise<SearchHit[]>
}

export interface ToolSearchStats {
  catalogs: number
  bytes: number
  /** Lookups answered by a catalog already indexed. */
  hits: number
  /** Lookups that indexed a catalog. */
  misses: number
  evictions: number
  /** Background checks of a fingerprint against the full hash, finished. */
  checks: number
  /** Of those, the ones that found the fingerprint stale and dropped it. */
  stale: number
}

export const DEFAULT_MAX_CATALOGS = 64
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024
export const DEFAULT_CHECK_INTERVAL_MS = 10_000
/** Fingerprints remembered per catalog kept: a catalog is often used by several workspaces. */
const FINGERPRINTS_PER_CATALOG = 4

type SemanticRanker = Awaited<ReturnType<typeof buildSemanticRanker>>

interface Entry {
  readonly catalog: CachedCatalog
  readonly bytes: number
}

/** A scoped fingerprint's catalog, by full key, and when it was last checked. */
interface Fingerprint {
  readonly key: string
  checkedAt: number
  checking: boolean
}

export class ToolSearch {
  private readonly embedder: Embedder
  private readonly maxCatalogs: number
  private readonly maxBytes: number
  private readonly checkIntervalMs: number
  private readonly entries = new Map<string, Entry>()
  private readonly fingerprints = new Map<string, Fingerprint>()
  private readonly running = new Set<Promise<void>>()
  private bytes = 0
  private hits = 0
  private misses = 0
  private evictions = 0
  private checks = 0
  private stale = 0

  constructor(options: ToolSearchOptions = {}) {
    this.embedder = options.embedder ?? defaultEmbedder()
    this.maxCatalogs = positive(options.maxCatalogs, DEFAULT_MAX_CATALOGS, 'maxCatalogs')
    this.maxBytes = positive(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes')
    const interval = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS
    if (!Number.isFinite(interval) || interval < 0) {
      throw new RangeError(`checkIntervalMs must be 0 or more, got ${interval}`)
    }
    this.checkIntervalMs = interval
  }

  /**
   * The catalog of these tools: cached when seen before, else indexed now (keyword mode).
   *
   * With a scope, a catalog seen before in that scope is found by `catalogFingerprint` (well
   * under a millisecond at 10,000 tools, where the full hash takes tens). At most once per
   * `checkIntervalMs` per fingerprint, the tools of the lookup are then hashed in full in the
   * background, a slice per event-loop turn; if the full hash differs, the fingerprint is dropped
   * and the scope's next lookup hashes in full and finds or builds the right index. So an edit the
   * fingerprint misses is served the previous ranking for at most one interval plus the time of
   * one check. The index only ranks names: callers load definitions from their own request.
   */
  catalog(tools: readonly ToolDocument[], options: CatalogOptions = {}): Catalog {
    if (options.scope === undefined) return this.byFullKey(tools)
    const scoped = `${options.scope.length}:${options.scope}:${catalogFingerprint(tools)}`
    const known = this.fingerprints.get(scoped)
    const entry = known === undefined ? undefined : this.entries.get(known.key)
    if (known === undefined || entry === undefined) {
      const catalog = this.byFullKey(tools)
      this.remember(scoped, { key: catalog.key, checkedAt: performance.now(), checking: false })
      return catalog
    }
    this.hits++
    this.touch(known.key, entry)
    this.fingerprints.delete(scoped)
    this.fingerprints.set(scoped, known)
    if (!known.checking && performance.now() - known.checkedAt >= this.checkIntervalMs) {
      this.check(scoped, known, tools.slice())
    }
    return entry.catalog
  }

  get stats(): ToolSearchStats {
    return {
      catalogs: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      checks: this.checks,
      stale: this.stale,
    }
  }

  /** Resolves once no background check is running (for tests and orderly shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running)
  }

  private byFullKey(tools: readonly ToolDocument[]): Catalog {
    // Hashed every time, never remembered by array: callers may change an array they reuse.
    const hashed = hashCatalog(tools)
    const key = hashed.key
    const found = this.entries.get(key)
    if (found !== undefined) {
      this.hits++
      this.touch(key, found)
      return found.catalog
    }
    this.misses++
    // The caller may change its array later; the index keeps what it was given now.
    const docs = tools.slice()
    const index = KeywordIndex.build(docs)
    const catalog = new CachedCatalog(key, docs, index, this.embedder)
    // The definitions are kept for semantic mode's first search: about two bytes a character.
    const entry: Entry = { catalog, bytes: index.bytes + hashed.chars * 2 }
    this.entries.set(key, entry)
    this.bytes += entry.bytes
    this.evict(key)
    return catalog
  }

  private touch(key: string, entry: Entry): void {
    this.entries.delete(key)
    this.entries.set(key, entry)
  }

  private remember(scoped: string, fingerprint: Fingerprint): void {
    this.fingerprints.delete(scoped)
    this.fingerprints.set(scoped, fingerprint)
    // Those of evicted catalogs go when looked up; this bounds the ones never looked up again.
    const limit = this.maxCatalogs * FINGERPRINTS_PER_CATALOG
    for (const oldest of this.fingerprints.keys()) {
      if (this.fingerprints.size <= limit) return
      this.fingerprints.delete(oldest)
    }
  }

  /** Hashes `tools` in full off the caller's path; drops the fingerprint if it was stale. */
  private check(scoped: string, known: Fingerprint, tools: readonly ToolDocument[]): void {
    known.checking = true
    const running = new Promise<void>((resolve) => {
      const steps = hashCatalogInSteps(tools)
      const finish = (key: string | undefined) => {
        known.checking = false
        known.checkedAt = performance.now()
        this.checks++
        if (key !== known.key) {
          this.stale++
          if (this.fingerprints.get(scoped) === known) this.fingerprints.delete(scoped)
        }
        resolve()
      }
      const step = () => {
        try {
          const next = steps.next()
          if (next.done) return finish(next.value.key)
          setImmediate(step)
        } catch {
          // Definitions that no longer serialise cannot be vouched for.
          finish(undefined)
        }
      }
      setImmediate(step)
    })
    this.running.add(running)
    void running.then(() => this.running.delete(running))
  }

  /** Oldest out until within bounds; the catalog just built stays, even alone over the bytes. */
  private evict(keep: string): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxCatalogs && this.bytes <= this.maxBytes) return
      if (key === keep) continue
      this.entries.delete(key)
      this.bytes -= entry.bytes
      this.evictions++
    }
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  return value
}

class CachedCatalog implements Catalog {
  readonly size: number
  private semantic: Promise<SemanticRanker> | undefined

  constructor(
    readonly key: string,
    private readonly docs: readonly ToolDocument[],
    private readonly index: KeywordIndex,
    private readonly embedder: Embedder,
  ) {
    this.size = index.size
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    const limit = options.limit
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`limit must be a positive integer, got ${limit}`)
    }
    options.signal?.throwIfAborted()
    if (options.mode === 'keyword') return this.index.search(query, limit)
    if (options.mode !== 'semantic') throw new RangeError(`unknown search mode: ${options.mode}`)
    const ranker = await abortable(this.semanticRanker(), options.signal)
    return ranker.search(query, limit, options.signal)
  }

  /**
   * Built once, on the first semantic search, and shared by every request that waits for it. It
   * is not tied to any one request's signal: one caller giving up must not fail the others. A
   * failed build is forgotten so that the next request tries again.
   */
  private semanticRanker(): Promise<SemanticRanker> {
    if (this.semantic === undefined) {
      const building = buildSemanticRanker(this.docs, this.index, this.embedder)
      this.semantic = building
      building.catch(() => {
        if (this.semantic === building) this.semantic = undefined
      })
    }
    return this.semantic
  }
}

/** Waits for `work` unless `signal` aborts first; the work itself goes on for other waiters. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
