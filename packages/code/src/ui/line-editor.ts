// The input line: text, a cursor between characters (code points), and the sent prompts' history.
import { singleLine } from './text-width.js'

/** Longest line the editor holds; a paste beyond it is cut. */
export const INPUT_MAX_CHARS = 20_000
const HISTORY_MAX = 200

export interface LineEditor {
  chars: string[]
  cursor: number
  history: string[]
  /** Position in `history` while browsing it; `history.length` when editing a new line. */
  browsing: number
  /** The unsent line, kept while browsing history. */
  draft: string[]
}

export function emptyEditor(): LineEditor {
  return { chars: [], cursor: 0, history: [], browsing: 0, draft: [] }
}

export function editorText(editor: LineEditor): string {
  return editor.chars.join('')
}

export function insertText(editor: LineEditor, text: string): LineEditor {
  const room = INPUT_MAX_CHARS - editor.chars.length
  const added = Array.from(singleLine(text)).slice(0, Math.max(0, room))
  if (added.length === 0) return editor
  const chars = [
    ...editor.chars.slice(0, editor.cursor),
    ...added,
    ...editor.chars.slice(editor.cursor),
  ]
  return { ...editor, chars, cursor: editor.cursor + added.length }
}

export function backspace(editor: LineEditor): LineEditor {
  if (editor.cursor === 0) return editor
  const chars = [...editor.chars.slice(0, editor.cursor - 1), ...editor.chars.slice(editor.cursor)]
  return { ...editor, chars, cursor: editor.cursor - 1 }
}

export function moveCursor(editor: LineEditor, by: number): LineEditor {
  const cursor = Math.min(editor.chars.length, Math.max(0, editor.cursor + by))
  return cursor === editor.cursor ? editor : { ...editor, cursor }
}

export function cursorTo(editor: LineEditor, where: 'start' | 'end'): LineEditor {
  return { ...editor, cursor: where === 'start' ? 0 : editor.chars.length }
}

/** Takes the line out for sending: clears the editor and remembers non-blank lines. */
export function submit(editor: LineEditor): { editor: LineEditor; text: string } {
  const text = editorText(editor)
  const history =
    text.trim() === '' || editor.history.at(-1) === text
      ? editor.history
      : [...editor.history, text].slice(-HISTORY_MAX)
  return {
    text,
    editor: { chars: [], cursor: 0, history, browsing: history.length, draft: [] },
  }
}

/** Up (-1) and down (+1) through the history; past the newest entry is the unsent draft. */
export function browseHistory(editor: LineEditor, by: -1 | 1): LineEditor {
  const target = editor.browsing + by
  if (target < 0 || target > editor.history.length) return editor
  const draft = editor.browsing === editor.history.length ? editor.chars : editor.draft
  const chars = target === editor.history.length ? draft : Array.from(editor.history[target] ?? '')
  return { ...editor, chars, cursor: chars.length, browsing: target, draft }
}
