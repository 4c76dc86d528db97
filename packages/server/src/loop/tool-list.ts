import type { ChatFunctionTool, ChatTool } from '@syntic/protocol'

/** The name a tool is called by: function and custom tools carry one, standard entries their type. */
export function toolName(tool: ChatTool): string {
  if (tool.type === 'function') return tool.function.name
  if (tool.type === 'custom') return tool.custom.name
  return tool.type
}

/**
 * The tools the upstream sees on the next turn: the request's loaded tools, the server tools'
 * definitions while they are available, then definitions loaded during the loop, in the order
 * they were loaded (so the prompt's prefix stays the same from turn to turn, for caching).
 */
export class ToolList {
  private server: readonly ChatFunctionTool[]
  private readonly loaded = new Map<string, ChatTool>()
  private cached: ChatTool[] | null = null

  constructor(
    private readonly base: readonly ChatTool[],
    server: readonly ChatFunctionTool[],
  ) {
    this.server = server
  }

  load(tools: readonly ChatTool[]): void {
    for (const tool of tools) {
      const name = toolName(tool)
      if (this.loaded.has(name)) continue
      this.loaded.set(name, tool)
      this.cached = null
    }
  }

  unload(names: readonly string[]): void {
    for (const name of names) {
      if (this.loaded.delete(name)) this.cached = null
    }
  }

  /** Takes server tool definitions away: those named, or all. */
  removeServerTools(names?: readonly string[]): void {
    this.server =
      names === undefined ? [] : this.server.filter((t) => !names.includes(t.function.name))
    this.cached = null
  }

  current(): ChatTool[] {
    this.cached ??= [...this.base, ...this.server, ...this.loaded.values()]
    return this.cached
  }
}
