// `syntic code -p PROMPT`: one task, no screen. The conversation goes to stdout in the format of
// format.ts as it becomes final; errors also go to stderr. Nobody can answer a permission
// request here, so edits and destructive commands are declined unless the mode allows them.
import type { Writable } from 'node:stream'
import type { CodeConfig } from '../config/config.js'
import type { ModHostPort } from '../mods/host-port.js'
import { type HostContext, type Session, startSession } from '../session/session.js'
import { finishedCount, formatEntry } from './format.js'
import { type ModGrants, printGrantPrompt } from './grants.js'

export interface PrintOptions {
  config: CodeConfig
  cwd: string
  prompt: string
  grants: ModGrants
  /** False runs no mods (`--no-mods`). */
  mods: boolean
  /** Builds the mod host; the real `ModHost` by default. */
  createHost?: (context: HostContext) => ModHostPort
  out: Writable
  err: Writable
}

/** How often the session ticks without a screen: mods' notes show up this quickly. */
export const PRINT_TICK_MS = 50

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_INTERRUPTED = 130

/** Runs the task and resolves with the exit code. */
export async function runPrint(options: PrintOptions): Promise<number> {
  const { out, err } = options
  let printed = 0
  let started: Session | undefined
  const session = await startSession({
    config: options.config,
    cwd: options.cwd,
    grant: printGrantPrompt(options.grants),
    mods: options.mods,
    createHost: options.createHost,
    // Each event marks a point where earlier entries are final (a tool call began or ended).
    onEvent: () => flush(),
  })
  started = session
  function flush(final = false): void {
    if (started === undefined) return
    const entries = started.transcript()
    const count = final
      ? entries.length - printed
      : finishedCount(entries, printed, started.agent.state().busy)
    for (const entry of entries.slice(printed, printed + count))
      out.write(`${formatEntry(entry)}\n`)
    printed += count
  }
  const timer = setInterval(() => {
    session.tick()
    flush()
  }, PRINT_TICK_MS)
  const onSignal = () => session.interrupt()
  process.once('SIGINT', onSignal)
  let outcome: Awaited<ReturnType<typeof session.send>>
  try {
    outcome = await session.send(options.prompt)
  } finally {
    process.off('SIGINT', onSignal)
    clearInterval(timer)
  }
  // No waiting for the mods here: closing sends `session.end` and `bye`, and the host reads each
  // mod's output until it exits (half a second at most), so late notes are still printed.
  await session.close(outcome === 'interrupted' ? 'signal' : outcome === 'error' ? 'error' : 'exit')
  flush(true)
  const entries = session.transcript()
  const declined = entries.some((e) => e.kind === 'tool' && e.status === 'declined')
  if (declined && options.config.mode === 'default') {
    err.write(
      'syntic code: some tool calls were declined: -p mode cannot ask; pass --mode acceptEdits (edits) or --mode bypass (everything)\n',
    )
  }
  if (outcome === 'answered') return EXIT_OK
  if (outcome === 'interrupted') {
    err.write('syntic code: interrupted\n')
    return EXIT_INTERRUPTED
  }
  const last = [...entries].reverse().find((e) => e.kind === 'error')
  err.write(`syntic code: ${last?.kind === 'error' ? last.text : 'the task failed'}\n`)
  return EXIT_FAILED
}
