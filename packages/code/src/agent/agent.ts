// The agent loop: one user turn asks the model, runs the tool calls it makes (through the
// permission gate), sends the results back, and repeats until the model answers without calls.
// Everything that goes wrong ends up as a transcript line and a turn outcome, never a throw.
import { randomUUID } from 'node:crypto'
import type { ChatFunctionToolCall, ChatMessage } from '@syntic/protocol'
import type { ConfirmRequest, ToolResult } from '@syntic/tools'
import type {
  PermissionAnswer,
  PermissionMode,
  PermissionRequest,
  SessionEvent,
  SessionState,
  TranscriptEntry,
  TurnOutcome,
} from '../session/types.js'
import { type AssistantReply, InterruptedError, ModelError } from './chat-client.js'
import { destructiveDefault, EDIT_DECLINED, gateCall } from './permissions.js'
import { summarizeCall, summarizeOutput } from './summary.js'
import { SHELL, ToolBox } from './tool-box.js'

/** What the agent needs of the model: one streamed answer. `ChatClient` is the real one. */
export interface ModelClient {
  complete(
    messages: ChatMessage[],
    signal: AbortSignal,
    onText: (delta: string) => void,
  ): Promise<AssistantReply>
}

export type Ask = (request: PermissionRequest) => Promise<PermissionAnswer>

export interface AgentOptions {
  client: ModelClient
  model: string
  /** The project folder: the editor's root and the shell's workspace. */
  cwd: string
  /** `~/.syntic`, for memory and editor history. */
  home: string
  mode: PermissionMode
  sandbox: boolean
  network: boolean
  /** Model calls allowed in one turn. */
  maxSteps: number
  sessionId?: string
  /** Asked before edits and destructive commands; without it they are declined. */
  ask?: Ask
  onEvent?: (event: SessionEvent) => void
  onChange?: () => void
}

/** Shell output is cut to this; the model is told in the tool definition. */
export const MAX_OUTPUT_CHARS = 20_000

export const INTERRUPTED_TEXT = 'Interrupted by the user.'
const NOT_RUN = 'Not run: the user interrupted the turn.'

interface CurrentCall {
  call_id: string
  tool: string
  signal: AbortSignal
  declined: boolean
}

export function systemPrompt(cwd: string, mode: PermissionMode): string {
  return [
    `You are Syntic Code, a coding agent working in the project folder ${cwd}.`,
    'Use syntic_text_editor to read and change files, syntic_shell to run commands (it starts in the project folder), and syntic_memory for notes worth keeping between sessions.',
    'Work in small steps, check your work by running it, and finish with a short answer for the user.',
    modeNotice(mode),
  ].join('\n')
}

function modeNotice(mode: PermissionMode): string {
  switch (mode) {
    case 'plan':
      return 'Permission mode: plan. The session is read-only: read and run read-only commands, then answer with a plan; edits and other commands will be declined.'
    case 'default':
      return 'Permission mode: default. The user is asked before each edit and each destructive command and may decline.'
    case 'acceptEdits':
      return 'Permission mode: acceptEdits. Edits run without asking; the user is asked before destructive commands.'
    case 'bypass':
      return 'Permission mode: bypass. Tool calls run without asking.'
  }
}

export class Agent {
  readonly sessionId: string
  readonly cwd: string
  readonly model: string
  ask: Ask | undefined
  onEvent: ((event: SessionEvent) => void) | undefined
  onChange: (() => void) | undefined
  private mode: PermissionMode
  // The mode the model was last told about; a change is announced with the next prompt.
  private toldMode: PermissionMode
  private turns = 0
  private busy = false
  private readonly entries: TranscriptEntry[] = []
  private readonly messages: ChatMessage[]
  private readonly tools: ToolBox
  private controller: AbortController | null = null
  private current: CurrentCall | null = null
  private closed = false

  constructor(private readonly options: AgentOptions) {
    this.sessionId = options.sessionId ?? randomUUID()
    this.cwd = options.cwd
    this.model = options.model
    this.mode = options.mode
    this.toldMode = options.mode
    this.ask = options.ask
    this.onEvent = options.onEvent
    this.onChange = options.onChange
    this.messages = [{ role: 'system', content: systemPrompt(options.cwd, options.mode) }]
    this.tools = new ToolBox({
      cwd: options.cwd,
      home: options.home,
      sandbox: options.sandbox,
      network: options.network,
      maxOutputChars: MAX_OUTPUT_CHARS,
      confirm: (request) => this.confirmDestructive(request),
    })
  }

  state(): SessionState {
    return {
      session_id: this.sessionId,
      model: this.model,
      permission_mode: this.mode,
      turns: this.turns,
      busy: this.busy,
      cwd: this.cwd,
    }
  }

  /** The conversation view. Entries are replaced (never mutated) when they change. */
  transcript(): readonly TranscriptEntry[] {
    return this.entries
  }

  /** Adds a line to the view only (mod notes, warnings): the model never sees it. */
  addEntry(entry: TranscriptEntry): void {
    this.entries.push(entry)
    this.changed()
  }

  setMode(mode: PermissionMode): void {
    if (mode === this.mode) return
    const from = this.mode
    this.mode = mode
    this.emit({ event: 'mode.change', data: { from, to: mode } })
    this.changed()
  }

  /** Stops the running turn: the model call is aborted, a running command is killed. */
  interrupt(): void {
    if (this.controller === null || this.controller.signal.aborted) return
    this.controller.abort()
    if (this.current?.tool === SHELL) void this.tools.stopShell()
  }

  /** Ends the agent's tools (the shell session). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.interrupt()
    await this.tools.close()
  }

  /** Runs one user turn to its end. */
  async send(prompt: string): Promise<TurnOutcome> {
    if (this.busy) throw new Error('a turn is already running; interrupt it or wait for it')
    if (this.closed) throw new Error('the agent is closed')
    this.busy = true
    this.turns += 1
    const turn = this.turns
    const started = performance.now()
    const controller = new AbortController()
    this.controller = controller
    const counter = { calls: 0 }
    this.emit({ event: 'turn.start', data: { turn } })
    this.entries.push({ kind: 'user', text: prompt })
    this.messages.push({ role: 'user', content: this.withModeNotice(prompt) })
    this.changed()
    let outcome: TurnOutcome
    try {
      outcome = await this.loop(turn, controller.signal, counter)
    } catch (error) {
      // The loop catches what it expects; this is the last line of defence.
      this.entries.push({ kind: 'error', text: `internal error: ${String(error)}` })
      outcome = 'error'
    }
    if (outcome === 'interrupted') this.entries.push({ kind: 'warning', text: INTERRUPTED_TEXT })
    this.busy = false
    this.controller = null
    this.emit({
      event: 'turn.end',
      data: {
        turn,
        duration_ms: Math.round(performance.now() - started),
        tool_calls: counter.calls,
        outcome,
      },
    })
    this.changed()
    return outcome
  }

  private withModeNotice(prompt: string): string {
    if (this.toldMode === this.mode) return prompt
    this.toldMode = this.mode
    return `[${modeNotice(this.mode)}]\n\n${prompt}`
  }

  private async loop(
    turn: number,
    signal: AbortSignal,
    counter: { calls: number },
  ): Promise<TurnOutcome> {
    for (let step = 0; step < this.options.maxSteps; step++) {
      if (signal.aborted) return 'interrupted'
      const reply = await this.callModel(signal)
      if (reply === 'interrupted' || reply === 'error') return reply
      this.messages.push({
        role: 'assistant',
        content: reply.text === '' ? null : reply.text,
        ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
      })
      if (reply.toolCalls.length === 0) return 'answered'
      for (const call of reply.toolCalls) {
        if (signal.aborted) {
          this.messages.push({ role: 'tool', tool_call_id: call.id, content: NOT_RUN })
          continue
        }
        counter.calls += 1
        const content = await this.runCall(turn, call, signal)
        this.messages.push({ role: 'tool', tool_call_id: call.id, content })
      }
    }
    if (signal.aborted) return 'interrupted'
    this.entries.push({
      kind: 'error',
      text: `Stopped: the model made ${this.options.maxSteps} calls in this turn without finishing (the max_steps limit). Send a message to let it go on.`,
    })
    return 'error'
  }

  private async callModel(signal: AbortSignal): Promise<AssistantReply | 'interrupted' | 'error'> {
    let index = -1
    let text = ''
    const onText = (delta: string) => {
      text += delta
      if (index === -1) {
        index = this.entries.length
        this.entries.push({ kind: 'assistant', text })
      } else {
        this.entries[index] = { kind: 'assistant', text }
      }
      this.changed()
    }
    try {
      return await this.options.client.complete(this.messages, signal, onText)
    } catch (error) {
      // What the user saw stays in the model's history, so the next turn can refer to it.
      if (text !== '') this.messages.push({ role: 'assistant', content: text })
      if (error instanceof InterruptedError || signal.aborted) return 'interrupted'
      const message =
        error instanceof ModelError ? error.message : `model call failed: ${String(error)}`
      this.entries.push({ kind: 'error', text: message })
      this.changed()
      return 'error'
    }
  }

  private async runCall(
    turn: number,
    call: ChatFunctionToolCall,
    signal: AbortSignal,
  ): Promise<string> {
    const tool = call.function.name
    const started = performance.now()
    let input: unknown
    let parseError: string | undefined
    try {
      input = JSON.parse(call.function.arguments === '' ? '{}' : call.function.arguments)
    } catch (error) {
      parseError = `Error: the arguments are not valid JSON (${(error as Error).message}); send one JSON object.`
    }
    const index = this.entries.length
    this.entries.push({
      kind: 'tool',
      call_id: call.id,
      tool,
      summary: summarizeCall(tool, input),
      status: 'running',
    })
    this.emit({ event: 'tool.start', data: { turn, call_id: call.id, tool } })
    this.changed()
    const current: CurrentCall = { call_id: call.id, tool, signal, declined: false }
    this.current = current
    let result: ToolResult
    try {
      result =
        parseError === undefined
          ? await this.execute(tool, input, current)
          : { output: parseError, is_error: true }
    } finally {
      this.current = null
    }
    const status = current.declined ? 'declined' : result.is_error ? 'error' : 'ok'
    const entry = this.entries[index]
    if (entry?.kind === 'tool') {
      this.entries[index] = { ...entry, status, output: summarizeOutput(result.output) }
    }
    this.emit({
      event: 'tool.end',
      data: {
        turn,
        call_id: call.id,
        tool,
        status,
        duration_ms: Math.round(performance.now() - started),
      },
    })
    this.changed()
    return result.output
  }

  private async execute(tool: string, input: unknown, current: CurrentCall): Promise<ToolResult> {
    const handler = this.tools.handler(tool)
    if (handler === undefined) {
      return {
        output: `Error: there is no tool named ${JSON.stringify(tool)}; the tools are syntic_text_editor, syntic_shell and syntic_memory.`,
        is_error: true,
      }
    }
    const gate = gateCall(this.mode, tool, input, this.cwd)
    if (gate.action === 'decline') {
      current.declined = true
      return { output: gate.result, is_error: true }
    }
    if (gate.action === 'ask') {
      const answer = await this.askUser(
        { ...gate.request, call_id: current.call_id },
        current.signal,
      )
      if (answer !== 'allow') {
        current.declined = true
        return { output: EDIT_DECLINED, is_error: true }
      }
    }
    return handler.run(input)
  }

  private async confirmDestructive(request: ConfirmRequest): Promise<boolean> {
    const current = this.current
    const policy = destructiveDefault(this.mode)
    if (policy === 'allow') return true
    if (policy === 'ask' && current !== null) {
      const answer = await this.askUser(
        {
          call_id: current.call_id,
          tool: SHELL,
          summary: `run ${request.cmd}`,
          reason: 'destructive',
          detail: request.reasons.join('; '),
        },
        current.signal,
      )
      if (answer === 'allow') return true
    }
    if (current !== null) current.declined = true
    return false
  }

  /** Asks the user; no asker, a failing asker or an interrupt all mean no. */
  private async askUser(
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionAnswer> {
    const ask = this.ask
    if (ask === undefined || signal.aborted) return 'deny'
    let onAbort = () => {}
    const aborted = new Promise<PermissionAnswer>((resolve) => {
      onAbort = () => resolve('deny')
      signal.addEventListener('abort', onAbort, { once: true })
    })
    try {
      return await Promise.race([ask(request).catch((): PermissionAnswer => 'deny'), aborted])
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  private emit(event: SessionEvent): void {
    try {
      this.onEvent?.(event)
    } catch {
      // A listener's failure must not end the turn; the session reports its own errors.
    }
  }

  private changed(): void {
    try {
      this.onChange?.()
    } catch {
      // Same: a redraw that throws must not break the agent.
    }
  }
}
