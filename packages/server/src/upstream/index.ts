export { ANTHROPIC_VERSION, AnthropicUpstream } from './anthropic.js'
export { createUpstream } from './create.js'
export { OpenAIUpstream } from './openai.js'
export type {
  SseEvent,
  Upstream,
  UpstreamFormat,
  UpstreamRequest,
  UpstreamResult,
} from './port.js'
export { SseParser, SseSyntaxError } from './sse-parser.js'
