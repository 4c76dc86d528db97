import assert from 'node:assert/strict'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { testMod } from './test-harness.js'
import { sandbox, writeMod } from './test-support.js'

const examples = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  'examples',
  'mods',
)

async function run(dir: string, options: Parameters<typeof testMod>[1] = {}) {
  const lines: string[] = []
  const code = await testMod(dir, { timeoutMs: 4000, ...options }, (line) => lines.push(line))
  return { code, lines }
}

test('the turn-clock example passes: draws its status and pane, posts a note for the long turn', async () => {
  const { code, lines } = await run(join(examples, 'turn-clock'))
  assert.equal(code, 0, lines.join('\n'))
  assert.ok(lines.includes('← draw pane "recent turns":'))
  assert.ok(lines.includes('← note: [mod turn-clock] turn 2 took 1m 05s'))
  assert.ok(lines.includes('✓ the mod exited after bye'))
  assert.equal(lines.at(-1), 'ok: no problems found')
})

test('without the notes grant, turn-clock posts nothing', async () => {
  const { code, lines } = await run(join(examples, 'turn-clock'), { grant: [] })
  assert.equal(code, 0)
  assert.ok(!lines.some((l) => l.startsWith('← note')))
})

test('a misbehaving mod: bad lines with reasons, a crash, exit code 1', async () => {
  const box = sandbox()
  try {
    const dir = writeMod(
      box.home,
      'messy',
      { run: ['./run.sh'], ui: ['status'], events: ['turn.end'] },
      {
        'run.sh': `#!/bin/sh\nread hello\nprintf 'oops\\n{"type":"draw","slot":"pane","text":"x"}\\n{"type":"draw","slot":"status","lines":7}\\n'\nexit 4\n`,
      },
    )
    const { code, lines } = await run(dir, { grant: ['notes'] })
    assert.equal(code, 1)
    assert.ok(lines.includes('! grant "notes" ignored: mod.json does not ask for it'))
    assert.ok(lines.includes('✗ bad line 1 of at most 20: the line is not valid JSON'))
    assert.ok(
      lines.includes(
        '✗ bad line 2 of at most 20: draw to slot "pane", which mod.json does not list in `ui`',
      ),
    )
    assert.ok(lines.includes('✗ ignored: draw to status: `lines` must be an array of strings'))
    assert.ok(lines.includes('✗ the mod exited before bye (exit code 4)'))
    assert.equal(lines.at(-1), '4 problems found')
  } finally {
    box.cleanup()
  }
})

test('a broken manifest or a missing folder is reported, not started', async () => {
  const box = sandbox()
  try {
    const dir = writeMod(box.home, 'bad', { run: 'node x.js' })
    const broken = await run(dir)
    assert.equal(broken.code, 1)
    assert.match(broken.lines[0] ?? '', /mod.json `run` must be an array/)
    const missing = await run(join(box.home, 'nowhere'))
    assert.deepEqual(missing, {
      code: 1,
      lines: [`✗ ${join(box.home, 'nowhere')}: no such folder`],
    })
  } finally {
    box.cleanup()
  }
})

test('a mod ignoring bye is reported; custom events are sent in order', async () => {
  const box = sandbox()
  try {
    const dir = writeMod(box.home, 'deaf', {
      run: ['sh', '-c', 'trap "" TERM; while :; do sleep 1; done'],
      events: ['mode.change'],
    })
    const { code, lines } = await run(dir, {
      events: [{ event: 'mode.change', data: { from: 'default', to: 'plan' } }],
      timeoutMs: 500,
    })
    assert.equal(code, 1)
    assert.ok(
      lines.includes(
        '→ {"type":"event","event":"mode.change","data":{"from":"default","to":"plan"}}',
      ),
    )
    assert.ok(
      lines.includes(
        '✗ the mod did not exit within half a second of bye; its process group was killed',
      ),
    )
  } finally {
    box.cleanup()
  }
})
