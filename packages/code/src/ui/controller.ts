// The screen's state machine: keys in, frames out. It owns the input line, the open questions, the
// pane tab and the scroll; it reads the session once per tick and emits a frame only when the
// composed rows differ from the last ones, so a busy mod costs at most one paint per tick.
import type { GrantPrompt, ScreenSlots } from '../mods/host-port.js'
import {
  PERMISSION_MODES,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionRequest,
  type SessionState,
  type TranscriptEntry,
} from '../session/types.js'
import * as editor from './line-editor.js'
import { grantKey, permissionKey, type Question } from './prompts.js'
import type { Row } from './rows.js'
import { composeScreen } from './screen.js'
import { DOUBLE_CTRL_C_MS } from './screen-limits.js'

/** What the screen needs of a running session. */
export interface ScreenSession {
  transcript(): readonly TranscriptEntry[]
  state(): SessionState
  slots(): ScreenSlots
  /** Once per screen tick: the session refreshes the mods' view of it and takes their notes. */
  tick(): void
  /** Starts a turn; failures reach the transcript, so the promise only says when it ended. */
  send(prompt: string): Promise<unknown>
  interrupt(): void
  setMode(mode: PermissionMode): void
}

/** The keys the screen reads; ink's `Key` has these fields. */
export interface KeyPress {
  return: boolean
  escape: boolean
  tab: boolean
  shift: boolean
  ctrl: boolean
  backspace: boolean
  delete: boolean
  leftArrow: boolean
  rightArrow: boolean
  upArrow: boolean
  downArrow: boolean
  pageUp: boolean
  pageDown: boolean
  home: boolean
  end: boolean
}

export interface ControllerOptions {
  columns: number
  rows: number
  onFrame: (rows: Row[]) => void
  onExit: (code: number) => void
  now?: () => number
}

const EMPTY_SLOTS: ScreenSlots = { status: [], band: [], pane: [] }
const SCROLL_STEP = 10
const SCROLL_MAX = 100_000

export class ScreenController {
  private session: ScreenSession | null = null
  private columns: number
  private rows: number
  private line = editor.emptyEditor()
  private readonly questions: Question[] = []
  private paneTab = 0
  private scroll = 0
  private spinner = 0
  private hint = ''
  private lastCtrlC = Number.NEGATIVE_INFINITY
  private lastFrame = ''
  private exited = false
  private readonly now: () => number

  constructor(private readonly options: ControllerOptions) {
    this.columns = options.columns
    this.rows = options.rows
    this.now = options.now ?? Date.now
  }

  attach(session: ScreenSession): void {
    this.session = session
    this.render()
  }

  resize(columns: number, rows: number): void {
    this.columns = columns
    this.rows = rows
    this.render()
  }

  /** The agent's `ask`: resolves when the user answers (or the screen closes: deny). */
  readonly askPermission = (request: PermissionRequest): Promise<PermissionAnswer> =>
    new Promise((resolve) => {
      if (this.exited) return resolve('deny')
      this.questions.push({ kind: 'permission', request, answer: resolve })
      this.render()
    })

  /** The mod host's grant prompt: resolves with the permissions the user ticked. */
  readonly askGrant: GrantPrompt = (mod, wanted) =>
    new Promise((resolve) => {
      if (this.exited) return resolve([])
      this.questions.push({
        kind: 'grant',
        mod,
        wanted: [...wanted],
        checked: wanted.map(() => false),
        answer: resolve,
      })
      this.render()
    })

  /** The screen tick: tick the session, advance the spinner, paint if anything changed. */
  tick(): void {
    if (this.session !== null) {
      this.session.tick()
      if (this.session.state().busy) this.spinner++
    }
    this.render()
  }

  key(input: string, key: KeyPress): void {
    if (this.exited) return
    if (key.ctrl && input === 'd') {
      this.exit(0)
      return
    }
    if (key.ctrl && input === 'c') {
      this.ctrlC()
      return
    }
    this.hint = ''
    // Keys typed faster than the screen reads arrive as one chunk: a final CR is Enter, inner
    // line breaks of a paste become spaces.
    const enter = !key.return && input.length > 1 && /[\r\n]$/.test(input)
    const text = enter ? input.replace(/[\r\n]+$/, '') : input
    this.dispatch(text, key)
    if (enter) this.dispatch('', { ...key, return: true })
    this.render()
  }

  private dispatch(input: string, key: KeyPress): void {
    const question = this.questions[0]
    if (question !== undefined) this.answerKey(question, input, key)
    else this.editKey(input, key)
  }

  /** Answers every open question negatively and stops taking keys. */
  close(): void {
    this.exited = true
    for (const question of this.questions.splice(0)) {
      if (question.kind === 'permission') question.answer('deny')
      else question.answer([])
    }
  }

  private exit(code: number): void {
    this.close()
    this.options.onExit(code)
  }

  private ctrlC(): void {
    const now = this.now()
    if (now - this.lastCtrlC <= DOUBLE_CTRL_C_MS) {
      this.exit(0)
      return
    }
    this.lastCtrlC = now
    const question = this.questions.shift()
    if (question?.kind === 'permission') question.answer('deny')
    if (question?.kind === 'grant') question.answer([])
    if (this.session?.state().busy === true) {
      this.session.interrupt()
      this.hint = 'interrupted; press Ctrl+C again to exit'
    } else if (this.line.chars.length > 0) {
      this.line = editor.submit(this.line).editor
      this.hint = 'press Ctrl+C again to exit'
    } else {
      this.hint = 'press Ctrl+C again to exit'
    }
    this.render()
  }

  private answerKey(question: Question, input: string, key: KeyPress): void {
    if (question.kind === 'permission') {
      const answer = permissionKey(input, key.escape)
      if (answer === null) return
      this.questions.shift()
      question.answer(answer)
      return
    }
    const next = grantKey(question, input, key.return, key.escape)
    if (next.granted === undefined) {
      this.questions[0] = next.question
      return
    }
    this.questions.shift()
    question.answer(next.granted)
  }

  private editKey(input: string, key: KeyPress): void {
    if (key.tab && key.shift) {
      this.cycleMode()
      return
    }
    if (key.tab) {
      this.paneTab++
      return
    }
    if (key.return) {
      this.enter()
      return
    }
    if (key.backspace || key.delete) this.line = editor.backspace(this.line)
    else if (key.leftArrow) this.line = editor.moveCursor(this.line, -1)
    else if (key.rightArrow) this.line = editor.moveCursor(this.line, 1)
    else if (key.home || (key.ctrl && input === 'a'))
      this.line = editor.cursorTo(this.line, 'start')
    else if (key.end || (key.ctrl && input === 'e')) this.line = editor.cursorTo(this.line, 'end')
    else if (key.upArrow) this.line = editor.browseHistory(this.line, -1)
    else if (key.downArrow) this.line = editor.browseHistory(this.line, 1)
    else if (key.pageUp) this.scroll = Math.min(SCROLL_MAX, this.scroll + SCROLL_STEP)
    else if (key.pageDown) this.scroll = Math.max(0, this.scroll - SCROLL_STEP)
    else if (!key.ctrl && !key.escape && input !== '')
      this.line = editor.insertText(this.line, input)
  }

  private enter(): void {
    const text = editor.editorText(this.line).trim()
    if (text === '') return
    if (text.startsWith('/')) {
      this.line = editor.submit(this.line).editor
      this.command(text)
      return
    }
    if (this.session === null) {
      this.hint = 'still starting; try again in a moment'
      return
    }
    if (this.session.state().busy) {
      this.hint = 'the agent is working; press Ctrl+C to interrupt it first'
      return
    }
    this.line = editor.submit(this.line).editor
    this.scroll = 0
    this.session.send(text).catch((error: unknown) => {
      this.hint = `the turn failed: ${error instanceof Error ? error.message : String(error)}`
    })
  }

  private command(text: string): void {
    const [name, ...args] = text.split(/\s+/)
    if (name === '/exit' || name === '/quit') {
      this.exit(0)
      return
    }
    if (name === '/mode') {
      const mode = args[0]
      if (mode !== undefined && (PERMISSION_MODES as readonly string[]).includes(mode)) {
        this.setMode(mode as PermissionMode)
        return
      }
      this.hint = `usage: /mode ${PERMISSION_MODES.join('|')}`
      return
    }
    this.hint = `unknown command ${name}; commands: /mode <name>, /exit`
  }

  private cycleMode(): void {
    const current = this.currentMode()
    const next =
      PERMISSION_MODES[(PERMISSION_MODES.indexOf(current) + 1) % PERMISSION_MODES.length]!
    this.setMode(next)
  }

  private setMode(mode: PermissionMode): void {
    if (this.session === null) {
      this.hint = 'still starting; try again in a moment'
      return
    }
    this.session.setMode(mode)
  }

  private currentMode(): PermissionMode {
    return this.session?.state().permission_mode ?? 'default'
  }

  private render(): void {
    if (this.exited) return
    const session = this.session
    const frame = composeScreen({
      columns: this.columns,
      rows: this.rows,
      transcript: session?.transcript() ?? [],
      slots: session?.slots() ?? EMPTY_SLOTS,
      mode: this.currentMode(),
      busy: session?.state().busy ?? false,
      spinner: this.spinner,
      editor: this.line,
      question: this.questions[0] ?? null,
      paneTab: this.paneTab,
      scroll: this.scroll,
      hint: session === null && this.hint === '' ? 'starting…' : this.hint,
    })
    const serialized = JSON.stringify(frame)
    if (serialized === this.lastFrame) return
    this.lastFrame = serialized
    this.options.onFrame(frame)
  }
}
