import type { CatalogOptions, SearchHit, SearchOptions, ToolDocument } from '@syntic/tool-search'

/**
 * What the tool search server tool needs of `@syntic/tool-search`: the process-wide `ToolSearch`
 * (which caches catalogs by their definitions) fits it.
 */
export interface ToolIndex {
  catalog(
    tools: readonly ToolDocument[],
    options?: CatalogOptions,
  ): {
    search(query: string, options: SearchOptions): Promise<SearchHit[]>
  }
}
