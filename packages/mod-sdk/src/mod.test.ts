// The SDK over real pipes: a child process runs a mod built on it; the test plays the host.
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { test } from 'node:test'

const sdk = new URL('./index.js', import.meta.url).href

const MOD = `
import { createMod, ModCallError } from '${sdk}'
const mod = createMod({
  onHello(hello) { mod.draw('status', 'hi ' + hello.granted.join(',')) },
  onBye() { process.stdout.write(JSON.stringify({ type: 'draw', slot: 'band', text: 'bye seen' }) + '\\n') },
})
mod.onEvent('turn.end', async (data) => {
  mod.draw('pane', { title: 't', lines: ['turn ' + data.turn] })
  mod.draw('band', null)
  mod.subscribe(['turn.start'])
  try { await mod.note('n' + data.turn) ; mod.draw('status', ['noted', 'x']) }
  catch (e) { mod.draw('status', (e instanceof ModCallError) + ' ' + e.message) }
  const s = await mod.state()
  mod.draw('status', 'state ' + s.turns)
})
`

function start(): {
  child: ChildProcessWithoutNullStreams
  next: () => Promise<Record<string, unknown>>
} {
  const child = spawn(process.execPath, ['--input-type=module', '-e', MOD])
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    child,
    next: async () => JSON.parse((await lines.next()).value as string) as Record<string, unknown>,
  }
}

const send = (child: ChildProcessWithoutNullStreams, message: unknown) =>
  child.stdin.write(`${JSON.stringify(message)}\n`)

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))

test('hello, events, draw shapes, subscribe, note errors and state over real pipes', async () => {
  const { child, next } = start()
  const exit = exited(child)
  send(child, {
    type: 'hello',
    protocol: 1,
    mod: 'm',
    events: ['turn.end'],
    ui: ['status'],
    granted: ['notes'],
  })
  assert.deepEqual(await next(), { type: 'draw', slot: 'status', text: 'hi notes' })
  send(child, {
    type: 'event',
    event: 'turn.end',
    data: { turn: 3, duration_ms: 1, tool_calls: 0, outcome: 'answered' },
  })
  assert.deepEqual(await next(), { type: 'draw', slot: 'pane', title: 't', lines: ['turn 3'] })
  assert.deepEqual(await next(), { type: 'draw', slot: 'band' })
  assert.deepEqual(await next(), { type: 'subscribe', events: ['turn.start'] })
  assert.deepEqual(await next(), {
    type: 'call',
    id: 1,
    method: 'note.post',
    params: { text: 'n3' },
  })
  send(child, 'not even an object')
  send(child, { type: 'result', id: 1, ok: false, error: 'too many notes; try again in a minute' })
  assert.deepEqual(await next(), {
    type: 'draw',
    slot: 'status',
    text: 'true too many notes; try again in a minute',
  })
  assert.deepEqual(await next(), { type: 'call', id: 2, method: 'session.state' })
  send(child, { type: 'result', id: 2, ok: true, value: { turns: 9 } })
  assert.deepEqual(await next(), { type: 'draw', slot: 'status', text: 'state 9' })
  send(child, { type: 'bye' })
  assert.deepEqual(await next(), { type: 'draw', slot: 'band', text: 'bye seen' })
  assert.equal(await exit, 0)
})

test('exits cleanly when its input ends, and refuses another protocol version', async () => {
  const first = start()
  const exit = exited(first.child)
  first.child.stdin.end()
  assert.equal(await exit, 0)

  const second = start()
  const refused = exited(second.child)
  send(second.child, { type: 'hello', protocol: 2, mod: 'm', events: [], ui: [], granted: [] })
  assert.equal(await refused, 2)
})
