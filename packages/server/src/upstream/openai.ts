import type { UpstreamConfig } from '../config.js'
import { HttpUpstream } from './http-upstream.js'

/**
 * An OpenAI-compatible upstream (vLLM, llama.cpp, Ollama, OpenAI): `POST {url}/chat/completions`
 * where the URL already ends in `/v1`, with a Bearer key when one is configured.
 */
export class OpenAIUpstream extends HttpUpstream {
  override readonly format = 'openai'

  constructor(config: UpstreamConfig) {
    super(config, {
      format: 'openai',
      endpoint: '/chat/completions',
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
    })
  }
}
