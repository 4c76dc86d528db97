import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type EditorOptions, TextEditorTool } from './editor.js'

/** A temporary workspace, history folder and outside folder for one test. */
export interface Sandbox {
  root: string
  history: string
  outside: string
  tool: TextEditorTool
  /** Real path of a workspace file. */
  at(name: string): string
  /** A second tool on the same root and history, as after an application restart. */
  restart(options?: Partial<EditorOptions>): TextEditorTool
  cleanup(): void
}

export function sandbox(options: Partial<EditorOptions> = {}): Sandbox {
  const base = mkdtempSync(join(tmpdir(), 'syntic-editor-test-'))
  const root = join(base, 'root')
  const history = join(base, 'history')
  const outside = join(base, 'outside')
  mkdirSync(root)
  mkdirSync(outside)
  const make = (extra: Partial<EditorOptions> = {}) =>
    new TextEditorTool({
      root,
      displayRoot: '/workspace',
      historyDir: history,
      ...options,
      ...extra,
    })
  return {
    root,
    history,
    outside,
    tool: make(),
    at: (name) => join(root, name),
    restart: make,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  }
}

/** Runs a call that must succeed and returns its text. */
export async function ok(tool: TextEditorTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, false, `expected success, got: ${result.output}`)
  return result.output
}

/** Runs a call that must fail and returns its text, which always starts with `Error: `. */
export async function fails(tool: TextEditorTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, true, `expected an error, got: ${result.output}`)
  assert.match(result.output, /^Error: /)
  return result.output
}
