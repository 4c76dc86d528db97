// One index per distinct catalog, reused across requests: keyed by a hash of the definitions,
// bounded by count and by estimated bytes, least recently used out.
import { hashCatalog } from './catalog-key.js'
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
}

export interface Catalog {
  readonly key: string
  readonly size: number
  search(query: string, options: SearchOptions): Promise<SearchHit[]>
}

export interface ToolSearchStats {
  catalogs: number
  bytes: number
  hits: number
  misses: number
  evictions: number
}

export const DEFAULT_MAX_CATALOGS = 64
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024

type SemanticRanker = Awaited<ReturnType<typeof buildSemanticRanker>>

interface Entry {
  readonly catalog: CachedCatalog
  readonly bytes: number
}

export class ToolSearch {
  private readonly embedder: Embedder
  private readonly maxCatalogs: number
  private readonly maxBytes: number
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  private hits = 0
  private misses = 0
  private evictions = 0

  constructor(options: ToolSearchOptions = {}) {
    this.embedder = options.embedder ?? defaultEmbedder()
    this.maxCatalogs = positive(options.maxCatalogs, DEFAULT_MAX_CATALOGS, 'maxCatalogs')
    this.maxBytes = positive(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes')
  }

  /** The catalog of these tools: cached when seen before, else indexed now (keyword mode). */
  catalog(tools: readonly ToolDocument[]): Catalog {
    // Hashed every time, never remembered by array: callers may change an array they reuse.
    const hashed = hashCatalog(tools)
    const key = hashed.key
    const found = this.entries.get(key)
    if (found !== undefined) {
      this.hits++
      this.entries.delete(key)
      this.entries.set(key, found)
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

  get stats(): ToolSearchStats {
    return {
      catalogs: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    }
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
