import { OpenAICompatibleEmbedder, ToolSearch } from '@syntic/tool-search'
import type { EmbeddingsConfig } from '../../config.js'
import type { ToolIndex } from './tool-index.js'

/**
 * The process-wide tool search index: catalogs cached by their definitions (by a fingerprint
 * within a workspace, see `ToolSearch.catalog`), semantic mode on the configured embeddings
 * server or, without one, the embedded offline embedder.
 */
export function createToolIndex(embeddings: EmbeddingsConfig | undefined): ToolIndex {
  if (embeddings === undefined) return new ToolSearch()
  return new ToolSearch({ embedder: new OpenAICompatibleEmbedder(embeddings) })
}
