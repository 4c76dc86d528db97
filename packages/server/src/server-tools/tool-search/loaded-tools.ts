import { TOOL_SEARCH_MAX_LOADED } from '@syntic/protocol'

/**
 * The deferred tools loaded in one request, least recently loaded first. At most `limit` at once:
 * a search that would pass it unloads the least recently loaded tools, never those it just found.
 */
export class LoadedTools {
  private readonly order = new Map<string, true>()

  constructor(private readonly limit: number = TOOL_SEARCH_MAX_LOADED) {}

  /** Loads `names` as the most recent (again, for those already loaded); returns those unloaded. */
  load(names: readonly string[]): string[] {
    for (const name of names) {
      this.order.delete(name)
      this.order.set(name, true)
    }
    if (this.order.size <= this.limit) return []
    const found = new Set(names)
    const unloaded: string[] = []
    // Only a search finding more than the limit itself gets to the second pass.
    for (const spareFound of [true, false]) {
      for (const name of this.order.keys()) {
        if (this.order.size <= this.limit) return unloaded
        if (spareFound && found.has(name)) continue
        this.order.delete(name)
        unloaded.push(name)
      }
    }
    return unloaded
  }

  names(): string[] {
    return [...this.order.keys()]
  }
}
