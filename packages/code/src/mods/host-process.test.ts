// The mod's process: environment, PATH, folders, and hostile behaviour (crashes, floods, huge
// lines, never reading, ignoring bye with a child that ignores SIGTERM).
import assert from 'node:assert/strict'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { cleanPath } from './environment.js'
import { ModHost } from './host.js'
import type { HostLine } from './host-port.js'
import type { TraceEntry } from './mod-connection.js'
import { grantAll, STATE, sandbox, waitFor, writeMod } from './test-support.js'

function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // A zombie is dead; nothing may reap it inside a container without an init process.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return true
  }
}

test('empty environment plus the allow-list, cleaned PATH, own folder, private data folder', async () => {
  const box = sandbox()
  const bin = join(box.project, 'bin')
  mkdirSync(bin)
  // A planted `cat` in the project: if PATH were not cleaned, the mod would run it.
  writeFileSync(join(bin, 'cat'), '#!/bin/sh\necho hijacked > "$SYNTIC_MOD_DATA/hijacked"\n')
  chmodSync(join(bin, 'cat'), 0o755)
  const script = `#!/bin/sh
env > "$SYNTIC_MOD_DATA/env.txt"
pwd -P > "$SYNTIC_MOD_DATA/pwd.txt"
printf '{"type":"draw","slot":"status","text":"ready"}\\n'
exec cat > "$SYNTIC_MOD_DATA/in.txt"
`
  const dir = writeMod(
    box.home,
    'envy',
    { run: ['./run.sh'], events: ['turn.start'], ui: ['status'] },
    { 'run.sh': script },
  )
  const env = {
    PATH: `${bin}:relative/bin:/does/not/exist:${process.env.PATH}`,
    HOME: box.home,
    LANG: 'C.UTF-8',
    SYNTIC_API_KEY: 'sk_live_secret',
    AWS_SECRET_ACCESS_KEY: 'hunter2',
  }
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    env,
  })
  try {
    await host.start()
    await waitFor(() => host.slots().status.length === 1, 'the first draw')
    host.emit({
      event: 'turn.end',
      data: { turn: 1, duration_ms: 1, tool_calls: 0, outcome: 'answered' },
    })
    host.emit({ event: 'turn.start', data: { turn: 2 } })
    await host.stop()
    const data = join(box.home, '.syntic', 'mod-data', 'envy')
    assert.equal(statSync(data).mode & 0o777, 0o700)
    const vars = Object.fromEntries(
      readFileSync(join(data, 'env.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    )
    assert.equal(vars.SYNTIC_API_KEY, undefined)
    assert.equal(vars.AWS_SECRET_ACCESS_KEY, undefined)
    assert.equal(vars.HOME, box.home)
    assert.equal(vars.LANG, 'C.UTF-8')
    assert.equal(vars.SYNTIC_MOD_NAME, 'envy')
    assert.equal(vars.SYNTIC_MOD_DIR, realpathSync(dir))
    assert.equal(vars.SYNTIC_MOD_DATA, data)
    assert.equal(vars.SYNTIC_MOD_PROTOCOL, '1')
    const path = (vars.PATH as string).split(':')
    assert.ok(
      !path.includes(bin) && !path.includes('relative/bin') && !path.includes('/does/not/exist'),
    )
    assert.ok(path.includes('/usr/bin'))
    assert.equal(readFileSync(join(data, 'pwd.txt'), 'utf8').trim(), realpathSync(dir))
    assert.equal(existsSync(join(data, 'hijacked')), false)
    const received = readFileSync(join(data, 'in.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    assert.deepEqual(received, [
      {
        type: 'hello',
        protocol: 1,
        mod: 'envy',
        events: ['turn.start'],
        ui: ['status'],
        granted: [],
      },
      { type: 'event', event: 'turn.start', data: { turn: 2 } },
      { type: 'bye' },
    ])
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('cleanPath keeps absolute existing folders outside the project, plus system folders', () => {
  const box = sandbox()
  try {
    const inside = join(box.project, 'node_modules', '.bin')
    mkdirSync(inside, { recursive: true })
    const path = cleanPath(`${inside}:.:bin:${box.home}:${box.project}:/nope`, box.project)
    assert.equal(path[0], box.home)
    assert.ok(!path.includes(inside) && !path.includes(box.project) && !path.includes('/nope'))
    assert.ok(path.includes('/bin'))
  } finally {
    box.cleanup()
  }
})

test('a bare program name found only inside the project is not started', async () => {
  const box = sandbox()
  const bin = join(box.project, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'probe'), '#!/bin/sh\nsleep 100\n')
  chmodSync(join(bin, 'probe'), 0o755)
  writeMod(box.home, 'probe', { run: ['probe'] })
  const env = { PATH: `${bin}:${process.env.PATH}` }
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    env,
  })
  try {
    await host.start()
    assert.deepEqual(host.running(), [])
    assert.deepEqual(host.tick(STATE).lines, [
      {
        kind: 'warning',
        mod: 'probe',
        text: 'mod probe was not started: program "probe" was not found on the mod\'s PATH',
      },
    ])
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('a crash at start is a warning; the children it left behind are killed', async () => {
  const box = sandbox()
  const script = `#!/bin/sh
sleep 1000 &
echo $! > "$SYNTIC_MOD_DATA/child.pid"
printf '{"type":"draw","slot":"band","text":"about to die"}\\n'
exit 3
`
  writeMod(box.home, 'crash', { run: ['./run.sh'], ui: ['band'] }, { 'run.sh': script })
  const host = new ModHost({ projectDir: box.project, homeDir: box.home, grantPrompt: grantAll })
  try {
    await host.start()
    // The warning follows the crash once the mod's last lines are read: collect ticks until then.
    const lines: HostLine[] = []
    await waitFor(() => {
      lines.push(...host.tick(STATE).lines)
      return lines.some((line) => line.kind === 'warning')
    }, 'the crash warning')
    assert.deepEqual(lines.at(-1), {
      kind: 'warning',
      mod: 'crash',
      text: 'mod crash exited unexpectedly (exit code 3); its screen areas were cleared',
    })
    assert.deepEqual(host.slots().band, [])
    const child = Number(
      readFileSync(join(box.home, '.syntic', 'mod-data', 'crash', 'child.pid'), 'utf8'),
    )
    await waitFor(() => gone(child), 'the orphaned child to die')
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('ignoring bye, with a child that ignores SIGTERM: the whole group dies and stop returns', async () => {
  const box = sandbox()
  const script = `#!/bin/sh
trap '' TERM HUP INT
sh -c 'trap "" TERM HUP INT; echo $$ > "$SYNTIC_MOD_DATA/child.pid"; while :; do sleep 1; done' &
printf '{"type":"draw","slot":"status","text":"up"}\\n'
while :; do sleep 1; done
`
  writeMod(box.home, 'stubborn', { run: ['./run.sh'], ui: ['status'] }, { 'run.sh': script })
  const entries: TraceEntry[] = []
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: (_m, e) => entries.push(e),
  })
  await host.start()
  await waitFor(() => host.slots().status.length === 1, 'the draw')
  const pidFile = join(box.home, '.syntic', 'mod-data', 'stubborn', 'child.pid')
  await waitFor(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
    'the child',
  )
  const child = Number(readFileSync(pidFile, 'utf8'))
  await host.stop()
  assert.deepEqual(entries.at(-1), { kind: 'stopped', exitedInTime: false })
  assert.deepEqual(host.tick(STATE).lines.at(-1), {
    kind: 'warning',
    mod: 'stubborn',
    text: 'mod stubborn did not exit within half a second of bye; its processes were killed',
  })
  await waitFor(() => gone(child), 'the child that ignores SIGTERM to die')
  box.cleanup()
})

test('a mod that never reads: events beyond the queue are dropped, emit never blocks', async () => {
  const box = sandbox()
  writeMod(box.home, 'deaf', { run: ['sleep', '1000'], events: ['tool.start'] })
  const host = new ModHost({ projectDir: box.project, homeDir: box.home, grantPrompt: grantAll })
  try {
    await host.start()
    for (let i = 0; i < 5000; i++) {
      host.emit({
        event: 'tool.start',
        data: { turn: 1, call_id: `call_${i}`.padEnd(200, 'x'), tool: 'syntic_shell' },
      })
    }
    const dropped = host.droppedEvents().deaf ?? 0
    assert.ok(dropped > 4000 && dropped < 5000, `dropped ${dropped}`)
    assert.deepEqual(host.tick(STATE).lines, [
      {
        kind: 'warning',
        mod: 'deaf',
        text: 'mod deaf is not reading its input; its oldest waiting events are dropped',
      },
    ])
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('huge lines (several MB) are skipped whole; the next line still counts', async () => {
  const box = sandbox()
  const script = `
import sys
sys.stdin.readline()
sys.stdout.write("x" * (5 * 1024 * 1024) + "\\n")
sys.stdout.write('{"type":"draw","slot":"status","text":"' + "y" * 70000 + '"}\\n')
for i in range(3000):
    sys.stdout.write('{"type":"draw","slot":"status","text":"n%d"}\\n' % i)
sys.stdout.write('{"type":"draw","slot":"status","text":"after"}\\n')
sys.stdout.flush()
for line in sys.stdin:
    pass
`
  writeMod(box.home, 'huge', { run: ['python3', 'mod.py'], ui: ['status'] }, { 'mod.py': script })
  const bad: string[] = []
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: (_m, e) => e.kind === 'bad' && bad.push(e.reason),
  })
  try {
    await host.start()
    await waitFor(() => host.slots().status[0]?.lines[0] === 'after', 'the last draw', 30_000)
    assert.deepEqual(bad, ['the line is longer than 64 KB', 'the line is longer than 64 KB'])
    assert.deepEqual(host.running(), ['huge'])
  } finally {
    await host.stop()
    box.cleanup()
  }
})
