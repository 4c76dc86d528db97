import type { UpstreamConfig } from '../config.js'
import { AnthropicUpstream } from './anthropic.js'
import { OpenAIUpstream } from './openai.js'
import type { Upstream } from './port.js'

/** The upstream client for a configured model server, by its wire format. */
export function createUpstream(config: UpstreamConfig): Upstream {
  return config.format === 'anthropic' ? new AnthropicUpstream(config) : new OpenAIUpstream(config)
}
