import { ApiError } from '../errors.js'

/**
 * Syntic model names (what clients send) to upstream model ids. An empty map passes every name
 * through, so a server in front of one local model needs no configuration.
 */
export class ModelMap {
  readonly names: readonly string[]
  private readonly ids: Map<string, string>

  constructor(models: Record<string, string>) {
    this.ids = new Map(Object.entries(models))
    this.names = [...this.ids.keys()]
  }

  upstreamId(requested: string): string {
    if (this.ids.size === 0) return requested
    const id = this.ids.get(requested)
    if (id !== undefined) return id
    const shown = requested.length > 100 ? `${requested.slice(0, 100)}…` : requested
    throw new ApiError(
      404,
      'not_found_error',
      'model_not_found',
      `The model ${JSON.stringify(shown)} does not exist. Available models: ${this.names.map((n) => JSON.stringify(n)).join(', ')}.`,
      'model',
    )
  }
}
