export const STANDARD_TOOL_TYPES = ['syntic_text_editor', 'syntic_shell', 'syntic_memory'] as const
export type StandardToolType = (typeof STANDARD_TOOL_TYPES)[number]

export function isStandardToolType(value: unknown): value is StandardToolType {
  return (STANDARD_TOOL_TYPES as readonly unknown[]).includes(value)
}

/** Options a request may set on a standard tool entry (spec: Tool definitions). */
export interface StandardToolOptions {
  /** Editor and memory: the display path the model treats as the top folder. */
  root?: string
  /** Shell: the length at which the application cuts long output. */
  max_output_chars?: number
}

/** What a standard tool type expands into: a named function with a JSON Schema input. */
export interface StandardToolDefinition {
  name: StandardToolType
  description: string
  input_schema: Record<string, unknown>
}
