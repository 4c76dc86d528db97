import { ToolSearch } from '@syntic/tool-search'
import type { EmbeddingsConfig } from '../../config.js'
import type { ToolIndex } from './tool-index.js'

/**
 * The process-wide tool search index: catalogs cached by the hash of their definitions, semantic
 * mode on the embedded offline embedder. An embeddings server needs `OpenAICompatibleEmbedder`
 * from `@syntic/tool-search`, which its package index does not export yet: refusing the setting
 * beats silently searching with another embedder than the operator configured.
 */
export function createToolIndex(embeddings: EmbeddingsConfig | undefined): ToolIndex {
  if (embeddings !== undefined) {
    throw new Error(
      'SYNTIC_EMBEDDINGS_URL is not supported by this build yet: unset it to use the embedded embedder',
    )
  }
  return new ToolSearch()
}
