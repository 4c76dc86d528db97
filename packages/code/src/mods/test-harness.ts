// `syntic code mod test <dir>`: run one mod exactly as the host would, feed it `hello` and a
// script of events, and print what it draws, posts and gets wrong. Exit code 0 means no problem.

import { realpathSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PERMISSION_NAMES } from '@syntic/mod-sdk'
import type { PermissionMode, SessionEvent, SessionState } from '../session/types.js'
import { ModHost } from './host.js'
import { BAD_LINES_MAX } from './limits.js'
import { MANIFEST_FILE, readManifest } from './manifest.js'
import type { TraceEntry } from './mod-connection.js'

export interface TestModOptions {
  /** The events to send after `hello`; by default a script covering every event. */
  events?: SessionEvent[]
  /** Permissions to grant; by default all the manifest asks for. */
  grant?: string[]
  /** How long the mod gets in all before `bye` (default 5000 ms). */
  timeoutMs?: number
}

const SHOWN_CHARS = 200
const OUTPUT_MAX_LINES = 400
const STEP_MS = 50
const QUIET_MS = 300

/** Two turns, one with a tool call and one over a minute long, a mode change, then the end. */
export function defaultScript(cwd: string): SessionEvent[] {
  const session_id = 'mod-test'
  return [
    {
      event: 'session.start',
      data: { session_id, model: 'mod-test', cwd, permission_mode: 'default' },
    },
    { event: 'turn.start', data: { turn: 1 } },
    { event: 'tool.start', data: { turn: 1, call_id: 'call_1', tool: 'syntic_shell' } },
    {
      event: 'tool.end',
      data: { turn: 1, call_id: 'call_1', tool: 'syntic_shell', status: 'ok', duration_ms: 420 },
    },
    { event: 'turn.end', data: { turn: 1, duration_ms: 3200, tool_calls: 1, outcome: 'answered' } },
    { event: 'mode.change', data: { from: 'default', to: 'acceptEdits' } },
    { event: 'turn.start', data: { turn: 2 } },
    {
      event: 'turn.end',
      data: { turn: 2, duration_ms: 65_000, tool_calls: 0, outcome: 'answered' },
    },
    { event: 'session.end', data: { turns: 2, reason: 'exit' } },
  ]
}

function shown(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} chars)` : text
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

export async function testMod(
  dir: string,
  options: TestModOptions,
  out: (line: string) => void,
): Promise<number> {
  let folder: string
  try {
    folder = realpathSync(resolve(dir))
  } catch {
    out(`✗ ${dir}: no such folder`)
    return 1
  }
  const result = readManifest(folder, basename(folder))
  if (!result.ok) {
    out(`✗ ${join(folder, MANIFEST_FILE)} ${result.error}`)
    return 1
  }
  const { manifest } = result
  const wanted = options.grant ?? manifest.permissions
  for (const name of wanted) {
    if (!(manifest.permissions as string[]).includes(name)) {
      out(`! grant ${JSON.stringify(name)} ignored: mod.json does not ask for it`)
    }
  }
  const granted = PERMISSION_NAMES.filter(
    (p) => manifest.permissions.includes(p) && wanted.includes(p),
  )
  out(`mod ${manifest.name}: ${manifest.description}`)
  out(`run: ${manifest.run.join(' ')}  (in ${folder})`)
  out(
    `events: ${manifest.events.join(', ') || '-'}  ui: ${manifest.ui.join(', ') || '-'}  granted: ${granted.join(', ') || '-'}`,
  )

  let problems = 0
  let printed = 0
  let lastActivity = performance.now()
  const print = (line: string) => {
    printed++
    if (printed <= OUTPUT_MAX_LINES) out(line)
    else if (printed === OUTPUT_MAX_LINES + 1) out('… (more output cut)')
  }
  const trace = (_mod: string, entry: TraceEntry) => {
    if (entry.kind !== 'sent') lastActivity = performance.now()
    switch (entry.kind) {
      case 'sent':
        return print(`→ ${shown(entry.line)}`)
      case 'draw': {
        if (!entry.content) return print(`← draw ${entry.slot}: cleared`)
        const title = entry.content.title ? ` "${entry.content.title}"` : ''
        print(`← draw ${entry.slot}${title}:`)
        for (const row of entry.content.lines) print(`    | ${shown(row)}`)
        return
      }
      case 'subscribe': {
        const ignored = entry.ignored.length
          ? `  (ignored, not in mod.json: ${entry.ignored.join(', ')})`
          : ''
        return print(`← subscribe ${entry.events.join(', ') || '(nothing)'}${ignored}`)
      }
      case 'note':
        return print(`← note: [mod ${manifest.name}] ${entry.text}`)
      case 'call':
        return print(`← call ${entry.method}: ${entry.ok ? 'ok' : `error "${entry.error}"`}`)
      case 'bad':
        problems++
        return print(`✗ bad line ${entry.count} of at most ${BAD_LINES_MAX}: ${entry.reason}`)
      case 'ignored':
        problems++
        return print(`✗ ignored: ${entry.reason}`)
      case 'exit':
        if (entry.expected) return
        problems++
        return print(
          `✗ the mod exited before bye (${entry.signal ? `signal ${entry.signal}` : `exit code ${entry.code}`})`,
        )
      case 'stopped':
        if (entry.exitedInTime) return print('✓ the mod exited after bye')
        problems++
        return print(
          '✗ the mod did not exit within half a second of bye; its process group was killed',
        )
    }
  }

  const cwd = process.cwd()
  let state: SessionState = {
    session_id: 'mod-test',
    model: 'mod-test',
    permission_mode: 'default',
    turns: 0,
    busy: false,
    cwd,
  }
  const host = new ModHost({
    projectDir: cwd,
    grantPrompt: async () => [],
    state,
    mods: [{ manifest, dir: folder, source: 'user', granted }],
    trace,
  })
  const showWarnings = () => {
    for (const line of host.tick(state).lines) {
      if (line.kind === 'warning') print(`! ${line.text}`)
    }
  }
  const started = performance.now()
  const timeoutMs = options.timeoutMs ?? 5000
  const alive = () => host.running().length > 0
  await host.start()
  showWarnings()
  if (!alive()) {
    out('✗ the mod did not start')
    return 1
  }
  await sleep(STEP_MS * 4)
  for (const event of options.events ?? defaultScript(cwd)) {
    if (!alive() || performance.now() - started > timeoutMs) break
    state = nextState(state, event)
    host.emit(event)
    showWarnings()
    await sleep(STEP_MS)
  }
  while (alive() && performance.now() - started < timeoutMs) {
    if (performance.now() - lastActivity >= QUIET_MS) break
    await sleep(STEP_MS)
  }
  showWarnings()
  await host.stop()
  showWarnings()
  out(
    problems === 0
      ? 'ok: no problems found'
      : `${problems} problem${problems === 1 ? '' : 's'} found`,
  )
  return problems === 0 ? 0 : 1
}

function nextState(state: SessionState, event: SessionEvent): SessionState {
  switch (event.event) {
    case 'turn.start':
      return { ...state, turns: event.data.turn, busy: true }
    case 'turn.end':
      return { ...state, busy: false }
    case 'mode.change':
      return { ...state, permission_mode: event.data.to as PermissionMode }
    default:
      return state
  }
}
