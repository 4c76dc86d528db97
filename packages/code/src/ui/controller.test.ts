import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ScriptedUpstream } from '@syntic/server/testing'
import type { CodeConfig } from '../config/config.js'
import { type Session, startSession } from '../session/session.js'
import { textEvents } from '../testing/chat-stream.js'
import { type KeyPress, ScreenController } from './controller.js'
import { type Row, rowText } from './rows.js'

const NO_KEY: KeyPress = {
  return: false,
  escape: false,
  tab: false,
  shift: false,
  ctrl: false,
  backspace: false,
  delete: false,
  leftArrow: false,
  rightArrow: false,
  upArrow: false,
  downArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
}

const textReply = (text: string) => ({ sse: textEvents(text) })

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('screen controller', () => {
  let upstream: ScriptedUpstream
  let dir: string
  let config: CodeConfig

  before(async () => {
    upstream = await ScriptedUpstream.start()
    dir = await mkdtemp(join(tmpdir(), 'syntic-ui-'))
    config = {
      target: { kind: 'upstream', baseUrl: upstream.openaiUrl, apiKey: undefined },
      model: 'm',
      mode: 'default',
      sandbox: false,
      network: false,
      maxSteps: 5,
      home: join(dir, '.syntic'),
    }
  })

  after(async () => {
    await upstream.close()
    await rm(dir, { recursive: true, force: true })
  })

  function harness() {
    const frames: Row[][] = []
    const exits: number[] = []
    let clock = 0
    const controller = new ScreenController({
      columns: 100,
      rows: 20,
      onFrame: (rows) => frames.push(rows),
      onExit: (code) => exits.push(code),
      now: () => clock,
    })
    const type = (text: string) => controller.key(text, NO_KEY)
    const press = (key: Partial<KeyPress>, input = '') =>
      controller.key(input, { ...NO_KEY, ...key })
    const screen = () => (frames.at(-1) ?? []).map(rowText)
    const advance = (ms: number) => {
      clock += ms
    }
    return { controller, frames, exits, type, press, screen, advance }
  }

  async function attached(h: ReturnType<typeof harness>): Promise<Session> {
    const session = await startSession({
      config,
      cwd: dir,
      ask: h.controller.askPermission,
      grant: h.controller.askGrant,
    })
    h.controller.attach(session)
    return session
  }

  it('sends the typed line to the model and shows the answer', async (t) => {
    const h = harness()
    const session = await attached(h)
    t.after(() => session.close())
    upstream.enqueue(textReply('Hi there.'))
    h.type('hello')
    h.press({ return: true })
    await until(() => !session.state().busy && session.transcript().length >= 2, 'the answer')
    h.controller.tick()
    assert.ok(h.screen().some((row) => row.startsWith('> hello')))
    assert.ok(h.screen().some((row) => row.startsWith('Hi there.')))
    const body = upstream.requests.at(-1)?.body as { messages: { content: unknown }[] }
    assert.ok(JSON.stringify(body.messages).includes('hello'))
    assert.match(h.screen().at(-2)!, /^› /)
  })

  it('cycles the mode with Shift+Tab and sets it with /mode', async (t) => {
    const h = harness()
    const session = await attached(h)
    t.after(() => session.close())
    h.press({ tab: true, shift: true })
    assert.equal(session.state().permission_mode, 'acceptEdits')
    assert.match(h.screen().at(-1)!, /mode: acceptEdits/)
    h.type('/mode bypass')
    h.press({ return: true })
    assert.equal(session.state().permission_mode, 'bypass')
    h.press({ tab: true, shift: true })
    assert.equal(session.state().permission_mode, 'default')
    h.type('/mode nonsense')
    h.press({ return: true })
    assert.equal(session.state().permission_mode, 'default')
    assert.ok(
      h.screen().some((row) => row.startsWith('usage: /mode default|acceptEdits|plan|bypass')),
    )
    h.type('/frobnicate')
    h.press({ return: true })
    assert.ok(h.screen().some((row) => row.startsWith('unknown command /frobnicate')))
    assert.equal(
      upstream.requests.filter((r) => JSON.stringify(r.body).includes('frobnicate')).length,
      0,
    )
  })

  it('treats typed-ahead text ending in a CR as a line and Enter', async (t) => {
    const h = harness()
    const session = await attached(h)
    t.after(() => session.close())
    h.type('/mode plan\r')
    assert.equal(session.state().permission_mode, 'plan')
  })

  it('asks a permission question and resolves it with the key pressed', async () => {
    const h = harness()
    const request = {
      call_id: 'c',
      tool: 'syntic_shell',
      summary: 'run rm -rf build',
      reason: 'destructive' as const,
    }
    const first = h.controller.askPermission(request)
    assert.ok(
      h
        .screen()
        .some((row) => row.startsWith('Allow syntic_shell? (the command looks destructive)')),
    )
    h.type('x')
    h.type('q')
    h.type('y')
    assert.equal(await first, 'allow')
    const second = h.controller.askPermission(request)
    h.press({ escape: true })
    assert.equal(await second, 'deny')
    assert.ok(!h.screen().some((row) => row.startsWith('Allow')))
  })

  it('asks grant questions one at a time', async () => {
    const h = harness()
    const a = h.controller.askGrant({ name: 'a', description: 'first' }, ['notes', 'session.read'])
    const b = h.controller.askGrant({ name: 'b', description: '' }, ['notes'])
    assert.ok(h.screen().some((row) => row.startsWith('Mod a asks for permissions')))
    h.type('2')
    assert.ok(h.screen().some((row) => row.includes('[x] 2 session.read')))
    h.press({ return: true })
    assert.deepEqual(await a, ['session.read'])
    assert.ok(h.screen().some((row) => row.startsWith('Mod b asks for permissions')))
    h.type('a')
    assert.deepEqual(await b, ['notes'])
  })

  it('denies open questions when it closes', async () => {
    const h = harness()
    const asked = h.controller.askPermission({
      call_id: 'c',
      tool: 't',
      summary: 's',
      reason: 'edit',
    })
    const granted = h.controller.askGrant({ name: 'a', description: '' }, ['notes'])
    h.controller.close()
    assert.equal(await asked, 'deny')
    assert.deepEqual(await granted, [])
    assert.equal(
      await h.controller.askPermission({ call_id: 'c', tool: 't', summary: 's', reason: 'edit' }),
      'deny',
    )
  })

  it('exits on Ctrl+D, on /exit, and on two quick Ctrl+C but not two slow ones', () => {
    const d = harness()
    d.press({ ctrl: true }, 'd')
    assert.deepEqual(d.exits, [0])
    const slash = harness()
    slash.type('/exit')
    slash.press({ return: true })
    assert.deepEqual(slash.exits, [0])
    const c = harness()
    c.type('draft')
    c.press({ ctrl: true }, 'c')
    assert.ok(c.screen().some((row) => row.startsWith('press Ctrl+C again to exit')))
    assert.match(c.screen().at(-2)!, /^› {2}/, 'the first Ctrl+C clears the line')
    c.advance(5000)
    c.press({ ctrl: true }, 'c')
    assert.deepEqual(c.exits, [])
    c.advance(100)
    c.press({ ctrl: true }, 'c')
    assert.deepEqual(c.exits, [0])
    c.press({ ctrl: true }, 'd')
    assert.deepEqual(c.exits, [0], 'keys after exit are ignored')
  })

  it('interrupts a running turn with Ctrl+C', async (t) => {
    const h = harness()
    const session = await attached(h)
    t.after(() => session.close())
    upstream.enqueue({ hang: true })
    h.type('wait forever')
    h.press({ return: true })
    await until(() => session.state().busy, 'the turn to start')
    h.type('more')
    h.press({ return: true })
    assert.ok(h.screen().some((row) => row.startsWith('the agent is working')))
    h.press({ ctrl: true }, 'c')
    await until(() => !session.state().busy, 'the interrupt')
    assert.deepEqual(h.exits, [])
  })

  it('paints only when the frame changes', async (t) => {
    const h = harness()
    const session = await attached(h)
    t.after(() => session.close())
    const before = h.frames.length
    for (let i = 0; i < 20; i++) h.controller.tick()
    assert.equal(h.frames.length, before)
    h.type('x')
    assert.equal(h.frames.length, before + 1)
    h.controller.resize(60, 10)
    assert.equal(h.frames.length, before + 2)
    assert.equal(h.screen().length, 10)
  })
})
