// One-line descriptions of tool calls and results for the conversation view. They are for the
// screen only; the model gets the full result.
import { EDITOR, MEMORY, SHELL } from './tool-box.js'

const MAX_SUMMARY = 120
const MAX_OUTPUT_LINES = 5
const MAX_OUTPUT_CHARS = 500

function field(input: unknown, name: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const value = (input as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** `shell: npm test`, `editor: replace src/a.ts`, `memory: list`. */
export function summarizeCall(tool: string, input: unknown): string {
  const command = field(input, 'command') ?? '?'
  if (tool === SHELL) {
    const cmd = field(input, 'cmd')
    if (command === 'run' && cmd !== undefined) {
      const first = cmd.split('\n')[0] ?? ''
      return cut(`shell: ${first}${cmd.includes('\n') ? ' …' : ''}`, MAX_SUMMARY)
    }
    return `shell: ${command}`
  }
  const name = tool === EDITOR ? 'editor' : tool === MEMORY ? 'memory' : tool
  const path = field(input, 'path')
  return cut(`${name}: ${command}${path === undefined ? '' : ` ${path}`}`, MAX_SUMMARY)
}

/** The first few lines of a result. */
export function summarizeOutput(output: string): string {
  const lines = output.split('\n')
  const head = lines.slice(0, MAX_OUTPUT_LINES).join('\n')
  const more =
    lines.length > MAX_OUTPUT_LINES ? `\n… ${lines.length - MAX_OUTPUT_LINES} more lines` : ''
  return cut(head, MAX_OUTPUT_CHARS) + more
}
