// Drives a real terminal for the screen's end-to-end tests: a private tmux server per screen, keys
// in with `send-keys`, the screen out with `capture-pane`. Waits poll the screen; nothing sleeps a
// fixed time.
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const TMUX = '/usr/bin/tmux'
const POLL_MS = 50
const DEFAULT_DEADLINE_MS = 20_000
/** The launcher prints this (and the exit code) when the command ends; the pane stays open. */
export const EXITED_MARK = '__EXITED__'

let serial = 0

export interface TmuxScreenOptions {
  /** Folder for the launcher script. */
  scratch: string
  cwd: string
  /** The whole environment of the command: nothing else from the test's leaks in. */
  env: Record<string, string>
  argv: string[]
  columns: number
  rows: number
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

export class TmuxScreen {
  private constructor(private readonly socket: string) {}

  static async start(options: TmuxScreenOptions): Promise<TmuxScreen> {
    serial += 1
    const socket = `syntic-ui-${process.pid}-${serial}`
    const launcher = join(options.scratch, `launch-${serial}.sh`)
    const env = Object.entries(options.env).map(([k, v]) => `${k}=${shellQuote(v)}`)
    await writeFile(
      launcher,
      [
        `cd ${shellQuote(options.cwd)} || exit 1`,
        `env -i ${env.join(' ')} ${options.argv.map(shellQuote).join(' ')}`,
        `echo "${EXITED_MARK} $?"`,
        'exec sleep 600',
        '',
      ].join('\n'),
    )
    const screen = new TmuxScreen(socket)
    await screen.tmux(
      'new-session',
      '-d',
      '-x',
      String(options.columns),
      '-y',
      String(options.rows),
      `/bin/sh ${shellQuote(launcher)}`,
    )
    return screen
  }

  /** The screen, one string per row, trailing spaces removed. */
  async capture(): Promise<string[]> {
    const { stdout } = await this.tmux('capture-pane', '-p')
    return stdout.replace(/\n$/, '').split('\n')
  }

  /** Polls until `check` holds for the screen; returns that screen. */
  async waitFor(
    check: (rows: string[]) => boolean,
    what: string,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ): Promise<string[]> {
    const deadline = Date.now() + deadlineMs
    let rows: string[] = []
    for (;;) {
      rows = await this.capture()
      if (check(rows)) return rows
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}; the screen was:\n${rows.join('\n')}`)
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }

  waitForText(text: string, deadlineMs?: number): Promise<string[]> {
    return this.waitFor((rows) => rows.some((row) => row.includes(text)), `"${text}"`, deadlineMs)
  }

  /** Types literal text (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-l', text)
  }

  /** Presses named keys: `Enter`, `BTab`, `Escape`, `C-c`, ... */
  async press(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', ...keys)
  }

  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux('resize-window', '-x', String(columns), '-y', String(rows))
  }

  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => {})
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run(TMUX, ['-u', '-L', this.socket, '-f', '/dev/null', ...args], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    })
  }
}
