// The protocol with real mods in Python, shell and TypeScript: results, errors word for word,
// drawing rules, subscriptions, notes and bad lines.
import assert from 'node:assert/strict'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ModHost } from './host.js'
import type { TraceEntry } from './mod-connection.js'
import { grantAll, STATE, sandbox, waitFor, writeMod } from './test-support.js'

const here = dirname(fileURLToPath(import.meta.url))

function traced() {
  const entries: { mod: string; entry: TraceEntry }[] = []
  const sent = (mod: string) =>
    entries
      .filter((e) => e.mod === mod && e.entry.kind === 'sent')
      .map((e) => JSON.parse((e.entry as { line: string }).line) as Record<string, unknown>)
  const bad = (mod: string) =>
    entries
      .filter((e) => e.mod === mod && e.entry.kind === 'bad')
      .map((e) => e.entry as { reason: string })
  return {
    entries,
    sent,
    bad,
    trace: (mod: string, entry: TraceEntry) => entries.push({ mod, entry }),
  }
}

const PY_CALLS = `
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
hello = json.loads(sys.stdin.readline())
send({"type":"call","id":1,"method":"note.post","params":{"text":"Build\\nfinished.\\u001b[31m"}})
send({"type":"call","id":"two","method":"session.state"})
send({"type":"call","id":{"k":[1]},"method":"note.post"})
send({"type":"call","id":4,"method":"note.post","params":{"text":"\\u0007 \\u202e"}})
send({"type":"call","id":5,"method":"fs.read"})
for i in range(6, 11):
    send({"type":"call","id":i,"method":"note.post","params":{"text":"n%d" % i}})
send({"type":"call","method":"note.post","params":{"text":"x" * 900}})
send({"type":"draw","slot":"status","text":"t\\u0007ext","lines":["l1","l2"]})
send({"type":"draw","slot":"band","text":"a\\nb\\nc\\nd","lines":["L"]})
send({"type":"draw","slot":"pane","text":"p1\\np2"})
send({"type":"draw","slot":"band"})
send({"type":"draw","slot":"pane","text":5})
send({"type":"subscribe","events":"turn.end"})
send({"type":"call","id":99,"method":"session.state"})
for line in sys.stdin:
    pass
`

test('calls get results with the caller id, and every spec error word for word', async () => {
  const box = sandbox()
  const t = traced()
  writeMod(
    box.home,
    'py',
    {
      run: ['python3', 'mod.py'],
      ui: ['status', 'band', 'pane'],
      permissions: ['notes', 'session.read'],
    },
    { 'mod.py': PY_CALLS },
  )
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: t.trace,
  })
  try {
    await host.start()
    await waitFor(() => t.sent('py').some((m) => m.id === 99), 'the last result')
    const results = t.sent('py').filter((m) => m.type === 'result')
    const byId = (id: unknown) => results.find((r) => JSON.stringify(r.id) === JSON.stringify(id))
    assert.deepEqual(t.sent('py')[0], {
      type: 'hello',
      protocol: 1,
      mod: 'py',
      events: [],
      ui: ['status', 'band', 'pane'],
      granted: ['notes', 'session.read'],
    })
    assert.deepEqual(byId(1), { type: 'result', id: 1, ok: true, value: {} })
    assert.deepEqual(byId('two'), {
      type: 'result',
      id: 'two',
      ok: false,
      error: 'session state is not available yet',
    })
    assert.deepEqual(byId({ k: [1] }), {
      type: 'result',
      id: { k: [1] },
      ok: false,
      error: '`text` is required',
    })
    assert.deepEqual(byId(4), { type: 'result', id: 4, ok: false, error: '`text` is empty' })
    assert.deepEqual(byId(5), {
      type: 'result',
      id: 5,
      ok: false,
      error: 'unknown method `fs.read`',
    })
    for (const id of [6, 7, 8, 9]) assert.equal(byId(id)?.ok, true)
    assert.deepEqual(byId(10), {
      type: 'result',
      id: 10,
      ok: false,
      error: 'too many notes; try again in a minute',
    })
    assert.deepEqual(byId(null), {
      type: 'result',
      id: null,
      ok: false,
      error: 'too many notes; try again in a minute',
    })
    // Only the unknown method was a bad line; failed calls for other reasons are not.
    assert.deepEqual(
      t.bad('py').map((b) => b.reason),
      ['call to unknown method `fs.read`'],
    )
    const tick = host.tick(STATE)
    assert.equal(tick.slotsChanged, true)
    assert.deepEqual(tick.lines[0], { kind: 'note', mod: 'py', text: 'Build finished.' })
    assert.equal(tick.lines.filter((l) => l.kind === 'note').length, 5)
    assert.deepEqual(host.slots(), {
      status: [{ mod: 'py', lines: ['text'] }],
      band: [],
      pane: [{ mod: 'py', lines: ['p1', 'p2'], title: 'py' }],
    })
    assert.ok(
      t.entries.some(
        (e) => e.entry.kind === 'ignored' && /`text` must be a string/.test(e.entry.reason),
      ),
    )
    assert.ok(t.entries.some((e) => e.entry.kind === 'ignored' && /subscribe/.test(e.entry.reason)))
    assert.equal(host.tick(STATE).slotsChanged, false)
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('session.state answers the six fields of the last tick; ungranted methods are refused', async () => {
  const box = sandbox()
  const t = traced()
  const script = `
import json, sys
hello = json.loads(sys.stdin.readline())
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        sys.stdout.write(json.dumps({"type":"call","id":m["data"]["turn"],"method":"session.state"}) + "\\n")
        sys.stdout.write(json.dumps({"type":"call","id":"n","method":"note.post","params":{"text":"hi"}}) + "\\n")
        sys.stdout.flush()
`
  writeMod(
    box.home,
    'state',
    {
      run: ['python3', 'mod.py'],
      events: ['turn.start'],
      permissions: ['notes', 'session.read'],
    },
    { 'mod.py': script },
  )
  const prompts: string[][] = []
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: async (_mod, wanted) => {
      prompts.push(wanted)
      return ['session.read']
    },
    trace: t.trace,
  })
  try {
    await host.start()
    assert.deepEqual(prompts, [['notes', 'session.read']])
    assert.deepEqual(t.sent('state')[0]?.granted, ['session.read'])
    host.tick({ ...STATE, turns: 7, busy: true, permission_mode: 'plan' })
    host.emit({ event: 'turn.start', data: { turn: 7 } })
    await waitFor(() => t.sent('state').some((m) => m.id === 'n'), 'the note result')
    const results = t.sent('state').filter((m) => m.type === 'result')
    assert.deepEqual(results[0], {
      type: 'result',
      id: 7,
      ok: true,
      value: { ...STATE, turns: 7, busy: true, permission_mode: 'plan' },
    })
    assert.deepEqual(results[1], {
      type: 'result',
      id: 'n',
      ok: false,
      error: 'permission `notes` not granted',
    })
    assert.deepEqual(
      t.bad('state').map((b) => b.reason),
      ['call to note.post without the `notes` permission'],
    )
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('more than 20 bad lines stop the mod; blank lines and failed calls do not count', async () => {
  const box = sandbox()
  const t = traced()
  const bad20 = [
    "printf 'not json\\n'",
    "printf '\\377\\376{}\\n'",
    'printf \'{"type":"dance"}\\n\'',
    "printf '[1,2]\\n'",
    'printf \'{"type":"draw","slot":"band","text":"x"}\\n\'',
    'printf \'{"type":"call","id":1,"method":"nope"}\\n\'',
    'printf \'{"type":"call","id":2,"method":"session.state"}\\n\'',
    "head -c 70000 /dev/zero | tr '\\000' a; printf '\\n'",
  ]
  const script = `#!/bin/sh
read hello
i=0
while [ $i -lt 20 ]; do printf '\\n   \\n{"type":"call","id":0,"method":"note.post","params":{}}\\n'; i=$((i+1)); done
${bad20.join('\n')}
${bad20.join('\n')}
${bad20.slice(0, 4).join('\n')}
printf '{"type":"draw","slot":"status","text":"alive"}\\n'
while read line; do case "$line" in *'"type":"event"'*) break;; esac; done
printf 'one too many\\n'
while :; do sleep 1; done
`
  writeMod(
    box.home,
    'bad',
    { run: ['./run.sh'], events: ['turn.start'], ui: ['status'], permissions: ['notes'] },
    { 'run.sh': script },
  )
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: t.trace,
  })
  try {
    await host.start()
    await waitFor(() => host.slots().status.length === 1, 'the status draw')
    assert.equal(t.bad('bad').length, 20)
    assert.deepEqual(host.running(), ['bad'])
    assert.deepEqual(
      t
        .bad('bad')
        .slice(0, 8)
        .map((b) => b.reason),
      [
        'the line is not valid JSON',
        'the line is not valid UTF-8',
        'unknown type "dance"',
        'the line is not a JSON object with a `type`',
        'draw to slot "band", which mod.json does not list in `ui`',
        'call to unknown method `nope`',
        'call to session.state without the `session.read` permission',
        'the line is longer than 64 KB',
      ],
    )
    host.tick(STATE)
    host.emit({ event: 'turn.start', data: { turn: 1 } })
    await waitFor(() => host.running().length === 0, 'the mod to be stopped')
    const tick = host.tick(STATE)
    assert.equal(tick.slotsChanged, true)
    assert.deepEqual(host.slots(), { status: [], band: [], pane: [] })
    assert.deepEqual(tick.lines, [
      {
        kind: 'warning',
        mod: 'bad',
        text: 'mod bad was stopped: it sent too many messages it is not allowed to send (21 bad lines)',
      },
    ])
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('a TypeScript mod on the SDK: subscribe narrows events, note and state round trip', async () => {
  const box = sandbox()
  const t = traced()
  writeMod(box.home, 'sdk', {
    run: [process.execPath, join(here, 'sdk-test-mod.js')],
    events: ['turn.start', 'turn.end'],
    ui: ['status', 'band', 'pane'],
    permissions: ['notes', 'session.read'],
  })
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: t.trace,
  })
  try {
    await host.start()
    await waitFor(() => t.entries.some((e) => e.entry.kind === 'subscribe'), 'the subscription')
    host.tick(STATE)
    host.emit({ event: 'turn.start', data: { turn: 5 } })
    host.emit({
      event: 'turn.end',
      data: { turn: 5, duration_ms: 10, tool_calls: 0, outcome: 'answered' },
    })
    await waitFor(() => host.slots().band.length === 1, 'the band')
    const sentEvents = t
      .sent('sdk')
      .filter((m) => m.type === 'event')
      .map((m) => m.event)
    assert.deepEqual(sentEvents, ['turn.end'])
    const slots = host.slots()
    assert.deepEqual(slots.status, [])
    assert.deepEqual(slots.band, [{ mod: 'sdk', lines: ['amara-1 4 default'] }])
    assert.deepEqual(slots.pane, [
      { mod: 'sdk', lines: ['granted: notes,session.read'], title: 'sdk' },
    ])
    const subscribe = t.entries.find((e) => e.entry.kind === 'subscribe')?.entry
    assert.deepEqual(subscribe, {
      kind: 'subscribe',
      events: ['turn.end'],
      ignored: ['no.such.event'],
    })
    assert.deepEqual(host.tick(STATE).lines, [{ kind: 'note', mod: 'sdk', text: 'turn 5 ended' }])
    await host.stop()
    assert.deepEqual(t.entries.find((e) => e.entry.kind === 'stopped')?.entry, {
      kind: 'stopped',
      exitedInTime: true,
    })
    assert.deepEqual(t.sent('sdk').at(-1), { type: 'bye' })
  } finally {
    await host.stop()
    box.cleanup()
  }
})

test('only the newest 50 waiting notes from all mods are kept', async () => {
  const box = sandbox()
  const t = traced()
  for (let m = 0; m < 11; m++) {
    const name = `n${String(m).padStart(2, '0')}`
    const posts = [1, 2, 3, 4, 5]
      .map(
        (i) =>
          `printf '{"type":"call","id":${i},"method":"note.post","params":{"text":"${name}-${i}"}}\\n'`,
      )
      .join('\n')
    writeMod(
      box.home,
      name,
      { run: ['./run.sh'], permissions: ['notes'] },
      { 'run.sh': `#!/bin/sh\n${posts}\nexec cat >/dev/null\n` },
    )
  }
  const host = new ModHost({
    projectDir: box.project,
    homeDir: box.home,
    grantPrompt: grantAll,
    trace: t.trace,
  })
  try {
    await host.start()
    await waitFor(() => t.entries.filter((e) => e.entry.kind === 'note').length === 55, '55 notes')
    const notes = host.tick(STATE).lines
    assert.equal(notes.length, 50)
    const order = t.entries
      .filter((e) => e.entry.kind === 'note')
      .map((e) => (e.entry as { text: string }).text)
    assert.deepEqual(
      notes.map((n) => n.text),
      order.slice(5),
    )
  } finally {
    await host.stop()
    box.cleanup()
  }
})
