import assert from 'node:assert/strict'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ScriptedUpstream } from '@syntic/server/testing'
import type { CodeConfig } from '../config/config.js'
import { textEvents } from '../testing/chat-stream.js'
import { startSession } from './session.js'
import type { SessionEvent } from './types.js'

// Posts a note naming every event it gets; `stubborn` ignores bye and SIGTERM.
const ECHO_MOD = `#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"type":"bye"'*) exit 0 ;;
    *'"type":"event"'*)
      name=$(printf '%s' "$line" | sed 's/.*"event":"\\([a-z.]*\\)".*/\\1/')
      printf '{"type":"call","id":"n","method":"note.post","params":{"text":"got %s"}}\\n' "$name" ;;
  esac
done
`
const STUBBORN_MOD = `#!/bin/sh
trap '' TERM
while :; do sleep 1; done
`

let base: string
let home: string
let project: string
let upstream: ScriptedUpstream

function writeMod(name: string, script: string, manifest: Record<string, unknown>): void {
  const dir = join(home, '.syntic', 'mods', name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'mod.json'), JSON.stringify({ name, run: ['./mod.sh'], ...manifest }))
  writeFileSync(join(dir, 'mod.sh'), script)
  chmodSync(join(dir, 'mod.sh'), 0o755)
}

function config(): CodeConfig {
  return {
    target: { kind: 'upstream', baseUrl: upstream.openaiUrl, apiKey: undefined },
    model: 'm1',
    mode: 'default',
    sandbox: true,
    network: false,
    maxSteps: 5,
    home: join(home, '.syntic'),
  }
}

async function tickUntil(tick: () => void, done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) {
    tick()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

before(async () => {
  upstream = await ScriptedUpstream.start()
  base = mkdtempSync(join(tmpdir(), 'syntic-session-'))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(project, { recursive: true })
  writeMod('echo', ECHO_MOD, {
    events: ['session.start', 'turn.start', 'turn.end', 'mode.change'],
    permissions: ['notes'],
  })
})
after(async () => {
  await upstream.close()
  rmSync(base, { recursive: true, force: true })
})

describe('startSession with real mods', () => {
  it('sends session.start once the mods run, relays events, shows notes only in the transcript', async () => {
    const events: SessionEvent[] = []
    const asked: string[][] = []
    const session = await startSession({
      config: config(),
      cwd: project,
      grant: async (mod, wanted) => {
        asked.push([mod.name, ...wanted])
        return wanted
      },
      onEvent: (event) => events.push(event),
    })
    assert.deepEqual(asked, [['echo', 'notes']])
    assert.deepEqual(session.host.running(), ['echo'])
    upstream.enqueue({ sse: textEvents('hello') }, { sse: textEvents('again') })
    assert.equal(await session.send('hi'), 'answered')
    session.setMode('plan')
    const notes = () => session.transcript().filter((e) => e.kind === 'note')
    await tickUntil(
      () => session.tick(),
      () => notes().length >= 4,
    )
    assert.deepEqual(
      notes().map((e) => (e.kind === 'note' ? `[mod ${e.mod}] ${e.text}` : '')),
      [
        '[mod echo] got session.start',
        '[mod echo] got turn.start',
        '[mod echo] got turn.end',
        '[mod echo] got mode.change',
      ],
    )
    // Notes go to the screen, never to the model.
    await session.send('next')
    assert.ok(!JSON.stringify(upstream.requests.at(-1)?.body).includes('got turn'))
    await session.close()
    assert.deepEqual(events[0], {
      event: 'session.start',
      data: {
        session_id: session.state().session_id,
        model: 'm1',
        cwd: project,
        permission_mode: 'default',
      },
    })
    assert.deepEqual(events.at(-1), { event: 'session.end', data: { turns: 2, reason: 'exit' } })
    assert.deepEqual(session.host.running(), [])
    await session.close()
  })

  it('ends on time when a mod ignores bye, and runs no mods with mods: false', async () => {
    writeMod('stubborn', STUBBORN_MOD, { events: ['turn.end'] })
    try {
      const session = await startSession({
        config: config(),
        cwd: project,
        grant: async (_m, w) => w,
      })
      assert.ok(session.host.running().includes('stubborn'))
      await session.close('signal')
      assert.deepEqual(session.host.running(), [])
      const warning = session
        .transcript()
        .find((e) => e.kind === 'warning' && e.text.includes('stubborn'))
      assert.ok(warning, 'a warning says the mod was killed')

      const bare = await startSession({
        config: config(),
        cwd: project,
        grant: async () => [],
        mods: false,
      })
      assert.deepEqual(bare.host.running(), [])
      await bare.close()
    } finally {
      rmSync(join(home, '.syntic', 'mods', 'stubborn'), { recursive: true, force: true })
    }
  })
  it('answers session.state from the very start, before the first screen tick', async () => {
    // Calls at once on hello, before the session has ticked, and keeps the answer.
    const STATER_MOD = `#!/bin/sh
read hello
printf '{"type":"call","id":1,"method":"session.state"}\\n'
read result
printf '%s\\n' "$result" > "$SYNTIC_MOD_DATA/result.json"
while read line; do case "$line" in *'"bye"'*) exit 0;; esac; done
`
    writeMod('stater', STATER_MOD, { permissions: ['session.read'] })
    const file = join(home, '.syntic', 'mod-data', 'stater', 'result.json')
    try {
      const session = await startSession({
        config: config(),
        cwd: project,
        grant: async (_m, w) => w,
      })
      for (let i = 0; i < 400 && !existsSync(file); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      await session.close()
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
        type: 'result',
        id: 1,
        ok: true,
        value: {
          session_id: session.state().session_id,
          model: 'm1',
          permission_mode: 'default',
          turns: 0,
          busy: false,
          cwd: project,
        },
      })
    } finally {
      rmSync(join(home, '.syntic', 'mods', 'stater'), { recursive: true, force: true })
    }
  })
})
