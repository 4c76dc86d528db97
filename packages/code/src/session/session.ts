// A Syntic Code session: the agent, the mods, and the wiring between them. Agent events go to the
// mods; the mods' notes and warnings come back, once per screen tick, as transcript lines that
// the model never sees. Closing is bounded: the session ends on time whatever the mods do.

import { Agent, type Ask, MAX_OUTPUT_CHARS } from '../agent/agent.js'
import { ChatClient } from '../agent/chat-client.js'
import type { CodeConfig } from '../config/config.js'
import { ModHost } from '../mods/host.js'
import type { GrantPrompt, ModHostPort, ScreenSlots } from '../mods/host-port.js'
import { NullHost } from './null-host.js'
import type {
  PermissionMode,
  SessionEvent,
  SessionState,
  TranscriptEntry,
  TurnOutcome,
} from './types.js'

export type SessionEndReason = Extract<SessionEvent, { event: 'session.end' }>['data']['reason']

/** What a mod host is built from; `startSession` passes it to `createHost`. */
export interface HostContext {
  /** The project folder. */
  cwd: string
  /** The user's home folder (mods live in `<home>/.syntic/mods`). */
  homeDir: string
  grant: GrantPrompt
}

export interface SessionOptions {
  config: CodeConfig
  /** The project folder. */
  cwd: string
  /** Answers permission requests; without it edits and destructive commands are declined. */
  ask?: Ask
  /** Asked for the permissions of mods never answered. */
  grant: GrantPrompt
  /** False runs no mods (`--no-mods`). Default true. */
  mods?: boolean
  /** Builds the mod host; the default is the real one, `ModHost`. */
  createHost?: (context: HostContext) => ModHostPort
  onChange?: () => void
  onEvent?: (event: SessionEvent) => void
}

/** The longest `close()` waits for the mods to stop (they get half a second after `bye`). */
export const HOST_STOP_LIMIT_MS = 1500

export interface Session {
  readonly agent: Agent
  readonly host: ModHostPort
  transcript(): readonly TranscriptEntry[]
  state(): SessionState
  slots(): ScreenSlots
  /** Once per screen tick: refreshes the mods' `session.state` and shows their notes. */
  tick(): void
  send(prompt: string): Promise<TurnOutcome>
  interrupt(): void
  setMode(mode: PermissionMode): void
  /** Sends `session.end`, stops the mods (bounded) and the tools. Safe to call twice. */
  close(reason?: SessionEndReason): Promise<void>
}

export function defaultHost(context: HostContext): ModHostPort {
  return new ModHost({
    projectDir: context.cwd,
    homeDir: context.homeDir,
    grantPrompt: context.grant,
  })
}

/** The user's home folder: `~/.syntic` is `config.home`. */
function homeDirOf(config: CodeConfig): string {
  return config.home.replace(/[/\\]\.syntic$/, '')
}

export async function startSession(options: SessionOptions): Promise<Session> {
  const { config } = options
  const client = new ChatClient({
    target: config.target,
    model: config.model,
    root: options.cwd,
    maxOutputChars: MAX_OUTPUT_CHARS,
  })
  const agent = new Agent({
    client,
    model: config.model,
    cwd: options.cwd,
    home: config.home,
    mode: config.mode,
    sandbox: config.sandbox,
    network: config.network,
    maxSteps: config.maxSteps,
    ask: options.ask,
    onChange: options.onChange,
  })
  const context: HostContext = {
    cwd: options.cwd,
    homeDir: homeDirOf(config),
    grant: options.grant,
  }
  const host: ModHostPort =
    options.mods === false ? new NullHost() : (options.createHost ?? defaultHost)(context)
  const emit = (event: SessionEvent) => {
    try {
      host.emit(event)
    } catch (error) {
      agent.addEntry({
        kind: 'warning',
        text: `the mod host failed to deliver ${event.event}: ${String(error)}`,
      })
    }
    try {
      options.onEvent?.(event)
    } catch {
      // The caller's listener is theirs to fix; the session goes on.
    }
  }
  agent.onEvent = emit
  const tick = () => {
    let lines: ReturnType<ModHostPort['tick']>['lines']
    try {
      lines = host.tick(agent.state()).lines
    } catch {
      return
    }
    for (const line of lines) {
      if (line.kind === 'note') agent.addEntry({ kind: 'note', mod: line.mod, text: line.text })
      else agent.addEntry({ kind: 'warning', text: line.text })
    }
  }

  // Before any mod starts, so `session.state` has an answer from the mod's first line on.
  tick()
  try {
    await host.start()
  } catch (error) {
    agent.addEntry({ kind: 'warning', text: `mods were not started: ${String(error)}` })
  }
  const state = agent.state()
  emit({
    event: 'session.start',
    data: {
      session_id: state.session_id,
      model: state.model,
      cwd: state.cwd,
      permission_mode: state.permission_mode,
    },
  })

  let closing: Promise<void> | null = null
  const close = (reason: SessionEndReason = 'exit'): Promise<void> => {
    closing ??= (async () => {
      agent.interrupt()
      emit({ event: 'session.end', data: { turns: agent.state().turns, reason } })
      let timer: NodeJS.Timeout | undefined
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, HOST_STOP_LIMIT_MS)
      })
      await Promise.race([host.stop().catch(() => {}), limit])
      clearTimeout(timer)
      // Notes a mod posted while it was told goodbye still reach the screen.
      tick()
      await agent.close()
    })()
    return closing
  }

  return {
    agent,
    host,
    transcript: () => agent.transcript(),
    state: () => agent.state(),
    slots: () => host.slots(),
    tick,
    // The screen calls this without awaiting it: a refusal (a turn already running) is a line in
    // the view, not an unhandled rejection.
    send: (prompt) =>
      agent.send(prompt).catch((error: unknown) => {
        agent.addEntry({
          kind: 'error',
          text: error instanceof Error ? error.message : String(error),
        })
        return 'error' as const
      }),
    interrupt: () => agent.interrupt(),
    setMode: (mode) => agent.setMode(mode),
    close,
  }
}
