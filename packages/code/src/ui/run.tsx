// Runs the terminal UI around a session: mounts the screen before the session starts (the mods'
// grant prompts are asked while it starts), ticks it, and tears everything down on exit.
import { render } from 'ink'
import type { CodeConfig } from '../config/config.js'
import type { GrantPrompt, ModHostPort } from '../mods/host-port.js'
import { type HostContext, startSession } from '../session/session.js'
import type { PermissionAnswer, PermissionRequest } from '../session/types.js'
import { ScreenController, type ScreenSession } from './controller.js'
import { Frame } from './frame.js'
import type { Row } from './rows.js'
import { SCREEN_TICK_MS } from './screen-limits.js'

/** The questions the screen answers for the session it runs. */
export interface ScreenPrompts {
  ask: (request: PermissionRequest) => Promise<PermissionAnswer>
  grant: GrantPrompt
}

export interface ClosableScreenSession extends ScreenSession {
  close(reason?: 'exit' | 'error' | 'signal'): Promise<void>
}

export interface ScreenIo {
  stdin?: NodeJS.ReadStream
  stdout?: NodeJS.WriteStream
  stderr?: NodeJS.WriteStream
}

// The alternate screen keeps the user's scrollback intact and gives the layout a fixed grid.
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H'
const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l'
const SIGNAL_EXIT_CODES: [NodeJS.Signals, number][] = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]
const DEFAULT_COLUMNS = 80
const DEFAULT_ROWS = 24

export interface InteractiveOptions extends ScreenIo {
  config: CodeConfig
  /** The project folder. */
  cwd: string
  /** False runs no mods (`--no-mods`). Default true. */
  mods?: boolean
  /** Builds the mod host; the real one by default. */
  createHost?: (context: HostContext) => ModHostPort
}

/** `syntic code` without `-p`: the terminal UI around a new session. Resolves with the exit code. */
export function runInteractive(options: InteractiveOptions): Promise<number> {
  const { config, cwd, mods, createHost } = options
  return runScreen(
    ({ ask, grant }) => startSession({ config, cwd, ask, grant, mods, createHost }),
    options,
  )
}

/**
 * Shows `start`'s session until the user leaves; resolves with the exit code. The frame is one row
 * shorter than the terminal: the last row holds the cursor, so ink never has to clear the screen.
 */
export async function runScreen(
  start: (prompts: ScreenPrompts) => Promise<ClosableScreenSession>,
  io: ScreenIo = {},
): Promise<number> {
  const stdin = io.stdin ?? process.stdin
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  if (!stdin.isTTY || !stdout.isTTY) {
    stderr.write(
      'syntic code: the interactive screen needs a terminal; use -p "PROMPT" in scripts\n',
    )
    return 2
  }
  const size = () => ({
    columns: stdout.columns || DEFAULT_COLUMNS,
    rows: Math.max(1, (stdout.rows || DEFAULT_ROWS) - 1),
  })
  let paint: ((rows: Row[]) => void) | null = null
  let pending: Row[] | null = null
  let finish: (code: number) => void = () => {}
  const finished = new Promise<number>((resolve) => {
    finish = resolve
  })
  const controller = new ScreenController({
    ...size(),
    onFrame: (rows) => {
      if (paint === null) pending = rows
      else paint(rows)
    },
    onExit: (code) => finish(code),
  })
  const connect = (painter: (rows: Row[]) => void) => {
    paint = painter
    if (pending !== null) painter(pending)
    pending = null
  }

  stdout.write(ENTER_ALTERNATE_SCREEN)
  const instance = render(
    <Frame connect={connect} onKey={(input, key) => controller.key(input, key)} />,
    {
      stdin,
      stdout,
      stderr,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  )
  const onResize = () => controller.resize(size().columns, size().rows)
  stdout.on('resize', onResize)
  // Signals end the session the same orderly way, so mods get `bye` and the terminal is restored.
  const signalHandlers = SIGNAL_EXIT_CODES.map(([signal, exitCode]) => {
    const handler = () => finish(exitCode)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  let session: ClosableScreenSession | null = null
  let failure: string | null = null
  const fail = (error: unknown) => {
    failure = error instanceof Error ? error.message : String(error)
    finish(1)
  }
  // A fault in drawing ends the session in order rather than leaving the terminal in raw mode.
  const timer = setInterval(() => {
    try {
      controller.tick()
    } catch (error) {
      fail(error)
    }
  }, SCREEN_TICK_MS)
  const started = start({ ask: controller.askPermission, grant: controller.askGrant })
    .then((value) => {
      session = value
      controller.attach(value)
    })
    .catch(fail)
  const code = await finished
  clearInterval(timer)
  controller.close()
  stdout.off('resize', onResize)
  for (const [signal, handler] of signalHandlers) process.off(signal, handler)
  // A session still starting (e.g. a grant prompt was open) is closed once it is up.
  await started
  const signalled = SIGNAL_EXIT_CODES.some(([, exitCode]) => exitCode === code)
  const reason = failure !== null ? 'error' : signalled ? 'signal' : 'exit'
  if (session !== null) await (session as ClosableScreenSession).close(reason)
  instance.unmount()
  await instance.waitUntilExit()
  stdout.write(LEAVE_ALTERNATE_SCREEN)
  if (failure !== null) stderr.write(`syntic code: ${failure}\n`)
  return code
}
