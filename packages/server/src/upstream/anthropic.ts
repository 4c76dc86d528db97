import type { UpstreamConfig } from '../config.js'
import { HttpUpstream } from './http-upstream.js'

/** The API version whose Messages wire format the server translates to and from. */
export const ANTHROPIC_VERSION = '2023-06-01'

/** An Anthropic Messages upstream: `POST {url}/v1/messages`, the URL given without `/v1`. */
export class AnthropicUpstream extends HttpUpstream {
  override readonly format = 'anthropic'

  constructor(config: UpstreamConfig) {
    super(config, {
      format: 'anthropic',
      endpoint: '/v1/messages',
      headers: {
        'anthropic-version': ANTHROPIC_VERSION,
        ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}),
      },
    })
  }
}
