export {
  DEFAULT_WORD_VECTORS_PATH,
  defaultEmbedder,
  WordVectorEmbedder,
} from './default.js'
export { embedderFromEnv } from './from-env.js'
export {
  OpenAICompatibleEmbedder,
  type OpenAICompatibleEmbedderOptions,
} from './openai-compatible.js'
