// The mod host: finds the mods, asks for grants, starts them and relays session events, draws
// and notes between them and the screen. Nothing a mod does can block the caller: every method
// here returns at once except start and stop, which are bounded.
import { homedir } from 'node:os'
import type { EventName } from '@syntic/mod-sdk'
import type { SessionEvent, SessionState } from '../session/types.js'
import { discoverMods } from './discover.js'
import { cleanPath, ensureDataDir, modEnvironment, resolveProgram } from './environment.js'
import { decideGrants, GrantStore, grantsFile } from './grants.js'
import type {
  GrantPrompt,
  HostLine,
  ModHostPort,
  ScreenSlots,
  SlotName,
  TickResult,
} from './host-port.js'
import {
  type ConnectionContext,
  ModConnection,
  type ReadyMod,
  type TraceEntry,
} from './mod-connection.js'
import { ModProcess } from './mod-process.js'
import { WaitingLines } from './notes.js'

export interface ModHostOptions {
  /** The folder the session was started in: its `.syntic/mods` is searched, and PATH is kept out of it. */
  projectDir: string
  /** Where `.syntic/` (mods, grants, mod data) lives; the user's home by default. */
  homeDir?: string
  grantPrompt: GrantPrompt
  /** The environment the allow-list is copied from; this process's by default. */
  env?: NodeJS.ProcessEnv
  /** What `session.state` answers until the first tick. */
  state?: SessionState
  /** Run exactly these mods, without searching or asking (used by `mod test`). */
  mods?: ReadyMod[]
  /** Every step the host takes with a mod, for `mod test` and benchmarks. */
  trace?: (mod: string, entry: TraceEntry) => void
}

const SLOT_ORDER: SlotName[] = ['status', 'band', 'pane']

export class ModHost implements ModHostPort {
  private readonly connections: ModConnection[] = []
  private readonly waiting = new WaitingLines()
  private state: SessionState | undefined
  private changed = false
  private readonly homeDir: string
  private stopping: Promise<void> | undefined

  constructor(private readonly options: ModHostOptions) {
    this.homeDir = options.homeDir ?? homedir()
    this.state = options.state
  }

  async start(): Promise<void> {
    const ready = this.options.mods ?? (await this.prepare())
    const started = await Promise.all(ready.map((mod) => this.launch(mod)))
    for (const connection of started) if (connection) this.connections.push(connection)
  }

  emit(event: SessionEvent): void {
    if (this.stopping) return
    // Serialised and encoded once; every subscribed mod's pipe gets the same bytes.
    const line = Buffer.from(
      `${JSON.stringify({ type: 'event', event: event.event, data: event.data })}\n`,
    )
    for (const connection of this.connections) connection.deliver(event.event as EventName, line)
  }

  tick(state: SessionState): TickResult {
    this.state = state
    const changed = this.changed
    this.changed = false
    return { lines: this.waiting.take(), slotsChanged: changed }
  }

  slots(): ScreenSlots {
    const screen: ScreenSlots = { status: [], band: [], pane: [] }
    for (const connection of this.connections) {
      for (const slot of SLOT_ORDER) {
        const content = connection.slots.get(slot)
        if (content) screen[slot].push(content)
      }
    }
    return screen
  }

  running(): string[] {
    return this.connections.filter((c) => c.running).map((c) => c.name)
  }

  /** Events dropped per mod because it did not read them in time. */
  droppedEvents(): Record<string, number> {
    return Object.fromEntries(this.connections.map((c) => [c.name, c.droppedEvents]))
  }

  stop(): Promise<void> {
    this.stopping ??= Promise.all(this.connections.map((c) => c.stop())).then(() => {})
    return this.stopping
  }

  private async prepare(): Promise<ReadyMod[]> {
    const { mods, warnings } = discoverMods(this.homeDir, this.options.projectDir)
    for (const warning of warnings) this.waiting.push(warning)
    if (mods.length === 0) return []
    const store = new GrantStore(grantsFile(this.homeDir))
    if (store.problem) this.waiting.push({ kind: 'warning', mod: '', text: store.problem })
    const ready: ReadyMod[] = []
    // One prompt at a time: the user answers them in order.
    for (const mod of mods) {
      const decision = await decideGrants(mod, store, this.options.grantPrompt)
      if (decision.start) ready.push({ ...mod, granted: decision.granted })
      else
        this.warn(mod.manifest.name, `mod ${mod.manifest.name} was not started: ${decision.reason}`)
    }
    return ready
  }

  private async launch(mod: ReadyMod): Promise<ModConnection | undefined> {
    const name = mod.manifest.name
    const [program, ...args] = mod.manifest.run as [string, ...string[]]
    const parentEnv = this.options.env ?? process.env
    try {
      const dataDir = ensureDataDir(this.homeDir, name)
      const env = modEnvironment({
        name,
        dir: mod.dir,
        dataDir,
        projectDir: this.options.projectDir,
        parentEnv,
      })
      const path = cleanPath(parentEnv.PATH, this.options.projectDir)
      const resolved = resolveProgram(program, mod.dir, path)
      if (!resolved) {
        const where = program.includes('/') ? 'in the mod folder' : "on the mod's PATH"
        this.warn(name, `mod ${name} was not started: program "${program}" was not found ${where}`)
        return undefined
      }
      const child = await ModProcess.start({ program: resolved, args, cwd: mod.dir, env })
      const connection = new ModConnection(mod, child, this.context())
      // At once, before this mod's first line can be read: `hello` always comes first, even
      // while other mods are still being started.
      connection.sendHello()
      return connection
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      this.warn(name, `mod ${name} was not started: ${code}`)
      return undefined
    }
  }

  private context(): ConnectionContext {
    return {
      state: () => this.state,
      line: (line: HostLine) => this.waiting.push(line),
      slotsChanged: () => {
        this.changed = true
      },
      trace: this.options.trace,
    }
  }

  private warn(mod: string, text: string): void {
    this.waiting.push({ kind: 'warning', mod, text })
  }
}
