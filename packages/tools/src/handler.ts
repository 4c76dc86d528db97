import type { ToolResult } from './result.js'

/** A ready tool: the application passes the model's tool input and sends back the result. */
export interface ToolHandler {
  /** The tool name the model calls, e.g. `syntic_text_editor`. */
  readonly name: string
  /** Runs one call. Never throws: every failure is a result with `is_error: true`. */
  run(input: unknown): Promise<ToolResult>
  /** Releases what the handler holds (a shell session, open files). */
  close?(): Promise<void>
}
