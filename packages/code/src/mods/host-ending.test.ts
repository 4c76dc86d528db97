// How a mod's session ends: what it writes on its way out (after `turn.end`, after `bye`, just
// before a crash) still reaches the conversation, and `hello` is the first line it ever gets.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ModHost } from './host.js'
import type { HostLine } from './host-port.js'
import type { TraceEntry } from './mod-connection.js'
import { grantAll, STATE, sandbox, waitFor, writeMod } from './test-support.js'

const NOTE = (text: string) =>
  `printf '{"type":"call","id":"x","method":"note.post","params":{"text":"${text}"}}\\n'`

test('a note posted on bye, and one in answer to session.end, both reach the conversation', async () => {
  const box = sandbox()
  const script = `#!/bin/sh
read hello
while read line; do
  case "$line" in
    *'"session.end"'*) sleep 0.1; ${NOTE('session over')} ;;
    *'"bye"'*) ${NOTE('bye seen')}; ${NOTE('after bye')}; exit 0 ;;
  esac
done
`
  writeMod(
    box.home,
    'late',
    { run: ['./run.sh'], events: ['session.end'], permissions: ['notes'] },
    { 'run.sh': script },
  )
  const entries: TraceEntry[] = []
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: (_mod, entry) => entries.push(entry),
  })
  try {
    await host.start()
    host.emit({ event: 'session.end', data: { turns: 1, reason: 'exit' } })
    await host.stop()
    assert.deepEqual(
      host.tick(STATE).lines.map((line) => line.text),
      ['session over', 'bye seen', 'after bye'],
    )
    assert.deepEqual(entries.at(-1), { kind: 'stopped', exitedInTime: true })
  } finally {
    box.cleanup()
  }
})

test('the lines a mod wrote just before crashing are read before the crash warning', async () => {
  const box = sandbox()
  const script = `#!/bin/sh
read hello
${NOTE('last words')}
printf '{"type":"draw","slot":"status","text":"gone soon"}\\n'
exit 3
`
  writeMod(
    box.home,
    'dying',
    { run: ['./run.sh'], ui: ['status'], permissions: ['notes'] },
    { 'run.sh': script },
  )
  const entries: TraceEntry[] = []
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: (_mod, entry) => entries.push(entry),
  })
  try {
    await host.start()
    await waitFor(() => host.running().length === 0, 'the crash')
    await waitFor(() => entries.some((e) => e.kind === 'draw'), 'the draw to be read')
    const lines = await (async () => {
      const got: ReturnType<ModHost['tick']>['lines'] = []
      await waitFor(() => {
        got.push(...host.tick(STATE).lines)
        return got.some((line) => line.kind === 'warning')
      }, 'the warning')
      return got
    })()
    assert.deepEqual(lines, [
      { kind: 'note', mod: 'dying', text: 'last words' },
      {
        kind: 'warning',
        mod: 'dying',
        text: 'mod dying exited unexpectedly (exit code 3); its screen areas were cleared',
      },
    ])
    assert.deepEqual(host.slots().status, [])
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('hello is the first line each of many mods gets, even one that calls before reading', async () => {
  const box = sandbox()
  const names = Array.from({ length: 8 }, (_, i) => `eager-${i}`)
  for (const name of names) {
    writeMod(
      box.home,
      name,
      { run: ['./run.sh'], permissions: ['session.read'] },
      {
        'run.sh': `#!/bin/sh
printf '{"type":"call","id":[1,{"a":null}],"method":"session.state"}\\n'
read first
printf '%s\\n' "$first" > "$SYNTIC_MOD_DATA/first.txt"
while read line; do :; done
`,
      },
    )
  }
  const sent = new Map<string, string[]>()
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    state: STATE,
    trace: (mod, entry) => {
      if (entry.kind === 'sent') sent.set(mod, [...(sent.get(mod) ?? []), entry.line])
    },
  })
  try {
    await host.start()
    await waitFor(() => names.every((n) => (sent.get(n)?.length ?? 0) >= 2), 'the results')
    for (const name of names) {
      const [first, second] = sent.get(name)!.map((line) => JSON.parse(line))
      assert.equal(first.type, 'hello', name)
      assert.deepEqual(second, {
        type: 'result',
        id: [1, { a: null }],
        ok: true,
        value: STATE,
      })
    }
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('a mod stopped for bad lines has its output closed, not drained until it is killed', async () => {
  const box = sandbox()
  // It floods bad lines; once the host closes its output (a socket pair), its next write fails.
  const script = `import os, sys
sys.stdin.readline()
chunk = b"not json\\n" * 200
try:
    while True:
        sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
except (BrokenPipeError, ConnectionResetError):
    with open(os.path.join(os.environ["SYNTIC_MOD_DATA"], "closed"), "w") as f:
        f.write("output closed")
    os._exit(0)
`
  writeMod(box.home, 'flooder', { run: ['python3', 'run.py'] }, { 'run.py': script })
  const host = new ModHost({ projectDir: box.project, homeDir: box.home, grantPrompt: grantAll })
  try {
    await host.start()
    const lines: HostLine[] = []
    await waitFor(() => {
      lines.push(...host.tick(STATE).lines)
      return host.running().length === 0 && lines.some((line) => line.kind === 'warning')
    }, 'the flooder to be stopped')
    await host.stop()
    const marker = join(box.home, '.syntic', 'mod-data', 'flooder', 'closed')
    assert.equal(readFileSync(marker, 'utf8'), 'output closed')
  } finally {
    box.cleanup()
  }
})
