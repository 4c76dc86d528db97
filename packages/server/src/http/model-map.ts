import type { ModelConfig } from '../config.js'
import { ApiError } from '../errors.js'

/**
 * Syntic model names (what clients send) to upstream model ids. An empty map passes every name
 * through, so a server in front of one local model needs no configuration.
 */
export class ModelMap {
  readonly names: readonly string[]
  private readonly ids: Map<string, string>
  private readonly serverToolsOf = new Map<string, ReadonlySet<string>>()

  constructor(models: Record<string, string | ModelConfig>) {
    this.ids = new Map()
    for (const [name, model] of Object.entries(models)) {
      this.ids.set(name, typeof model === 'string' ? model : model.id)
      if (typeof model !== 'string' && model.server_tools !== undefined) {
        this.serverToolsOf.set(name, new Set(model.server_tools))
      }
    }
    this.names = [...this.ids.keys()]
  }

  /** Whether the model may use this server tool: every model may unless its config lists them. */
  supports(requested: string, serverTool: string): boolean {
    return this.serverToolsOf.get(requested)?.has(serverTool) ?? true
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
