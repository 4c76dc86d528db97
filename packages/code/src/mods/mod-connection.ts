// One running mod's side of the protocol: reading its lines within a budget, judging each one,
// answering calls, keeping its slots and subscription, and stopping it when it misbehaves.
import {
  ERRORS,
  type EventName,
  type HelloMessage,
  type JsonValue,
  METHOD_NAMES,
  METHOD_PERMISSIONS,
  type MethodName,
  type PermissionName,
  PROTOCOL_VERSION,
  type SlotName,
} from '@syntic/mod-sdk'
import type { SessionState } from '../session/types.js'
import type { FoundMod } from './discover.js'
import type { HostLine, SlotContent } from './host-port.js'
import {
  BAD_LINES_MAX,
  BYE_GRACE_MS,
  NOTE_MAX_CHARS,
  OUTGOING_PAUSE_BYTES,
  OUTPUT_DRAIN_MS,
  READ_BUDGET_LINES,
  READ_WINDOW_MS,
} from './limits.js'
import { LineReader, type ReadItem } from './line-reader.js'
import type { ModProcess } from './mod-process.js'
import { NoteRateLimit } from './notes.js'
import { isStringArray, parseModLine } from './protocol.js'
import { resolveDraw } from './slot-draw.js'
import { cleanOneLine, cutText } from './text-clean.js'

/** A mod that may run: found, its manifest valid, and what the user granted. */
export interface ReadyMod extends FoundMod {
  granted: PermissionName[]
}

/** What the host did with a mod, step by step: `mod test` prints it, the benchmark times it. */
export type TraceEntry =
  | { kind: 'sent'; line: string }
  | { kind: 'draw'; slot: SlotName; content: SlotContent | undefined }
  | { kind: 'subscribe'; events: EventName[]; ignored: string[] }
  | { kind: 'note'; text: string }
  | { kind: 'call'; method: string; ok: boolean; error?: string }
  | { kind: 'bad'; reason: string; count: number }
  | { kind: 'ignored'; reason: string }
  | { kind: 'exit'; code: number | null; signal: string | null; expected: boolean }
  | { kind: 'stopped'; exitedInTime: boolean }

export interface ConnectionContext {
  state(): SessionState | undefined
  line(line: HostLine): void
  slotsChanged(): void
  trace?: (mod: string, entry: TraceEntry) => void
}

const METHOD_NAME_MAX_CHARS = 100

function methodLabel(method: unknown): string {
  const label = typeof method === 'string' ? method : (JSON.stringify(method) ?? 'undefined')
  return cutText(cleanOneLine(label), METHOD_NAME_MAX_CHARS)
}

export class ModConnection {
  readonly name: string
  readonly slots = new Map<SlotName, SlotContent>()
  private subscription: Set<EventName>
  private readonly reader = new LineReader()
  private readonly notes = new NoteRateLimit()
  private reading = true
  private stopping = false
  private badLines = 0
  private windowStart = 0
  private windowLines = 0
  private resumeTimer: NodeJS.Timeout | undefined
  private warnedDrops = false
  private readonly stopped: Promise<void>
  private markStopped: () => void = () => {}

  constructor(
    readonly mod: ReadyMod,
    private readonly process: ModProcess,
    private readonly context: ConnectionContext,
  ) {
    this.name = mod.manifest.name
    this.subscription = new Set(mod.manifest.events)
    this.stopped = new Promise((resolve) => {
      this.markStopped = resolve
    })
    process.stdout.on('data', (chunk: Buffer) => {
      this.reader.push(chunk)
      this.pump()
    })
    process.onDrain = () => this.pump()
    void process.whenExited().then((exit) => this.exited(exit.code, exit.signal))
  }

  get running(): boolean {
    return this.reading && !this.stopping
  }

  get droppedEvents(): number {
    return this.process.droppedEvents
  }

  sendHello(): void {
    const { manifest, granted } = this.mod
    const hello: HelloMessage = {
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      mod: manifest.name,
      events: [...manifest.events],
      ui: [...manifest.ui],
      granted: [...granted],
    }
    this.send(`${JSON.stringify(hello)}\n`, false)
  }

  /** Deliver an already serialised `event` line if the mod is subscribed to it. */
  deliver(event: EventName, line: Buffer): void {
    if (!this.running || !this.subscription.has(event)) return
    if (!this.send(line, true) && !this.warnedDrops) {
      this.warnedDrops = true
      this.warn(`mod ${this.name} is not reading its input; its oldest waiting events are dropped`)
    }
  }

  /**
   * Session end: `bye`, half a second, then the whole process group is killed. The mod's output
   * is read until it ends (bounded), so what it posts on its way out still arrives.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopped
    this.stopping = true
    this.send('{"type":"bye"}\n', false)
    this.process.endInput()
    const { exitedInTime } = await this.process.stop(BYE_GRACE_MS)
    this.finishReading()
    this.trace({ kind: 'stopped', exitedInTime })
    if (!exitedInTime) {
      this.warn(
        `mod ${this.name} did not exit within half a second of bye; its processes were killed`,
      )
    }
    this.clearSlots()
    this.markStopped()
  }

  private send(line: string | Buffer, droppable: boolean): boolean {
    if (this.context.trace) this.trace({ kind: 'sent', line: line.toString().trimEnd() })
    return this.process.send(line, droppable)
  }

  private pump(): void {
    if (!this.reading) return
    const now = performance.now()
    if (now - this.windowStart >= READ_WINDOW_MS) {
      this.windowStart = now
      this.windowLines = 0
    }
    this.process.batch(() => this.readBudget())
    if (!this.reading) return
    const stdout = this.process.stdout
    if (!this.reader.pending) {
      stdout.resume()
      return
    }
    // Paused: the mod blocks on its own writes instead of costing us CPU. We come back at the
    // next read window, or when the mod has read enough of what we sent it.
    stdout.pause()
    if (this.windowLines >= READ_BUDGET_LINES && !this.resumeTimer) {
      const wait = Math.max(1, READ_WINDOW_MS - (performance.now() - this.windowStart))
      this.resumeTimer = setTimeout(() => {
        this.resumeTimer = undefined
        this.pump()
      }, wait)
      this.resumeTimer.unref()
    }
  }

  /** Handles the lines this read window still allows; their answers leave in one write. */
  private readBudget(): void {
    while (
      this.windowLines < READ_BUDGET_LINES &&
      this.process.backlogBytes <= OUTGOING_PAUSE_BYTES
    ) {
      const item = this.reader.take()
      if (!item) break
      this.windowLines++
      this.handle(item)
      if (!this.reading) return
    }
  }

  private handle(item: ReadItem): void {
    if (item.kind === 'oversized') {
      this.bad('the line is longer than 64 KB')
      return
    }
    const parsed = parseModLine(item.bytes)
    switch (parsed.kind) {
      case 'blank':
        return
      case 'bad':
        this.bad(parsed.reason)
        return
      case 'draw':
        this.draw(parsed.message)
        return
      case 'subscribe':
        this.subscribe(parsed.message)
        return
      case 'call':
        this.call(parsed.id, parsed.method, parsed.params)
        return
    }
  }

  private draw(message: Record<string, unknown>): void {
    const slot = message.slot
    if (typeof slot !== 'string' || !(this.mod.manifest.ui as string[]).includes(slot)) {
      const label = cutText(cleanOneLine(JSON.stringify(slot) ?? 'undefined'), 40)
      this.bad(`draw to slot ${label}, which mod.json does not list in \`ui\``)
      return
    }
    const outcome = resolveDraw(this.name, slot as SlotName, message)
    if (outcome.kind === 'malformed') {
      this.trace({ kind: 'ignored', reason: `draw to ${slot}: ${outcome.reason}` })
      return
    }
    const content = outcome.kind === 'set' ? outcome.content : undefined
    this.trace({ kind: 'draw', slot: slot as SlotName, content })
    const before = this.slots.get(slot as SlotName)
    if (content) this.slots.set(slot as SlotName, content)
    else this.slots.delete(slot as SlotName)
    if (JSON.stringify(before) !== JSON.stringify(content)) this.context.slotsChanged()
  }

  private subscribe(message: Record<string, unknown>): void {
    const events = message.events
    if (!isStringArray(events)) {
      this.trace({
        kind: 'ignored',
        reason: 'subscribe: `events` must be an array of strings',
      })
      return
    }
    const listed = this.mod.manifest.events
    this.subscription = new Set(listed.filter((name) => events.includes(name)))
    const ignored = events.filter((name) => !(listed as string[]).includes(name)).slice(0, 20)
    this.trace({ kind: 'subscribe', events: [...this.subscription], ignored })
  }

  private call(id: JsonValue, method: unknown, params: unknown): void {
    const label = methodLabel(method)
    if (typeof method !== 'string' || !(METHOD_NAMES as readonly string[]).includes(method)) {
      this.answer(id, label, { error: ERRORS.unknownMethod(label) })
      this.bad(`call to unknown method \`${label}\``)
      return
    }
    const permission = METHOD_PERMISSIONS[method as MethodName]
    if (!this.mod.granted.includes(permission)) {
      this.answer(id, label, { error: ERRORS.notGranted(permission) })
      this.bad(`call to ${method} without the \`${permission}\` permission`)
      return
    }
    if (method === 'note.post') {
      this.postNote(id, params)
      return
    }
    const state = this.context.state()
    if (!state) {
      this.answer(id, method, { error: 'session state is not available yet' })
      return
    }
    const { session_id, model, permission_mode, turns, busy, cwd } = state
    this.answer(id, method, { value: { session_id, model, permission_mode, turns, busy, cwd } })
  }

  private postNote(id: JsonValue, params: unknown): void {
    const text =
      typeof params === 'object' && params !== null && !Array.isArray(params)
        ? (params as Record<string, unknown>).text
        : undefined
    if (typeof text !== 'string') {
      this.answer(id, 'note.post', { error: ERRORS.textRequired })
      return
    }
    const cleaned = cutText(cleanOneLine(text).trim(), NOTE_MAX_CHARS)
    if (cleaned === '') {
      this.answer(id, 'note.post', { error: ERRORS.textEmpty })
      return
    }
    if (!this.notes.take(performance.now())) {
      this.answer(id, 'note.post', { error: ERRORS.tooManyNotes })
      return
    }
    this.trace({ kind: 'note', text: cleaned })
    this.context.line({ kind: 'note', mod: this.name, text: cleaned })
    this.answer(id, 'note.post', { value: {} })
  }

  private answer(
    id: JsonValue,
    method: string,
    outcome: { value: JsonValue; error?: undefined } | { error: string; value?: undefined },
  ): void {
    if (outcome.error === undefined) {
      this.trace({ kind: 'call', method, ok: true })
      this.send(
        `${JSON.stringify({ type: 'result', id, ok: true, value: outcome.value })}\n`,
        false,
      )
    } else {
      this.trace({ kind: 'call', method, ok: false, error: outcome.error })
      this.send(
        `${JSON.stringify({ type: 'result', id, ok: false, error: outcome.error })}\n`,
        false,
      )
    }
  }

  private bad(reason: string): void {
    this.badLines++
    this.trace({ kind: 'bad', reason, count: this.badLines })
    if (this.badLines <= BAD_LINES_MAX || this.stopping) return
    this.warn(
      `mod ${this.name} was stopped: it sent too many messages it is not allowed to send (${this.badLines} bad lines)`,
    )
    this.stopReading()
    this.clearSlots()
    void this.stop()
  }

  private async exited(code: number | null, signal: string | null): Promise<void> {
    const expected = this.stopping
    this.trace({ kind: 'exit', code, signal, expected })
    if (expected) return
    this.stopping = true
    this.process.killGroup()
    // Its last lines (a note, a draw) were written before it died: read them, then say it died.
    await this.process.outputDone(OUTPUT_DRAIN_MS)
    this.finishReading()
    const how = signal ? `signal ${signal}` : `exit code ${code}`
    this.warn(`mod ${this.name} exited unexpectedly (${how}); its screen areas were cleared`)
    this.clearSlots()
    this.markStopped()
  }

  /** Handle what is left of the mod's output (bounded: the pipe is paused when lines wait). */
  private finishReading(): void {
    if (this.reading) {
      for (let item = this.reader.take(); item && this.reading; item = this.reader.take()) {
        this.handle(item)
      }
    }
    this.stopReading()
  }

  /**
   * Nothing more the mod writes is read. Its output is closed rather than drained: a mod stopped
   * for flooding would otherwise be read (and ignored) as fast as it can write until it is killed.
   */
  private stopReading(): void {
    this.reading = false
    clearTimeout(this.resumeTimer)
    this.process.stdout.removeAllListeners('data')
    this.process.stdout.destroy()
  }

  private clearSlots(): void {
    if (this.slots.size === 0) return
    this.slots.clear()
    this.context.slotsChanged()
  }

  private warn(text: string): void {
    this.context.line({ kind: 'warning', mod: this.name, text })
  }

  private trace(entry: TraceEntry): void {
    this.context.trace?.(this.name, entry)
  }
}
