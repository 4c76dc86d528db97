import type { Embedder } from '../types.js'
import { defaultEmbedder } from './default.js'
import { OpenAICompatibleEmbedder } from './openai-compatible.js'

/**
 * The embedder the environment asks for: an OpenAI-compatible server when
 * SYNTIC_EMBEDDINGS_URL is set (with SYNTIC_EMBEDDINGS_MODEL, optional SYNTIC_EMBEDDINGS_API_KEY),
 * else the embedded offline default.
 */
export function embedderFromEnv(env: NodeJS.ProcessEnv): Embedder {
  const url = env.SYNTIC_EMBEDDINGS_URL?.trim()
  if (!url) return defaultEmbedder()
  return new OpenAICompatibleEmbedder({
    url,
    model: env.SYNTIC_EMBEDDINGS_MODEL?.trim() ?? '',
    apiKey: env.SYNTIC_EMBEDDINGS_API_KEY?.trim() || undefined,
  })
}
