import type { SearchHit, SearchOptions, ToolDocument } from '@syntic/tool-search'

/**
 * What the tool search server tool needs of `@syntic/tool-search`: the process-wide `ToolSearch`
 * (which caches catalogs by the hash of their definitions) fits it.
 */
export interface ToolIndex {
  catalog(tools: ToolDocument[]): {
    search(query: string, options: SearchOptions): Promise<SearchHit[]>
  }
}
