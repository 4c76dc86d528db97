import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readManifest, validateManifest } from './manifest.js'
import { sandbox } from './test-support.js'

const good = {
  name: 'turn-clock',
  description: 'clock',
  run: ['node', 'index.js'],
  events: ['turn.start', 'turn.end'],
  ui: ['status', 'pane'],
  permissions: ['notes'],
  protocol: 1,
}

test('accepts the documented fields and fills defaults', () => {
  const result = validateManifest({ name: 'x', run: ['./x'] }, 'x')
  assert.deepEqual(result, {
    ok: true,
    manifest: {
      name: 'x',
      description: '',
      run: ['./x'],
      events: [],
      ui: [],
      permissions: [],
      protocol: 1,
    },
  })
  assert.equal(validateManifest(good, 'turn-clock').ok, true)
})

test('every wrong field is refused with the field named', () => {
  const cases: [unknown, string, RegExp][] = [
    [{ ...good, extra: 1 }, 'turn-clock', /unknown field `extra`/],
    [{ ...good, name: 'Turn' }, 'Turn', /`name` must be/],
    [{ ...good, name: 'a'.repeat(65) }, 'a'.repeat(65), /`name` must be/],
    [good, 'other', /folder is "other"/],
    [{ ...good, description: 5 }, 'turn-clock', /`description` must be a string/],
    [{ ...good, description: 'x'.repeat(201) }, 'turn-clock', /`description` is longer/],
    [{ ...good, run: 'node index.js' }, 'turn-clock', /`run` must be an array/],
    [{ ...good, run: [] }, 'turn-clock', /`run` must be an array/],
    [{ ...good, run: ['node', 3] }, 'turn-clock', /`run` must be an array/],
    [{ ...good, run: ['a\0b'] }, 'turn-clock', /`run` must be an array/],
    [{ ...good, run: [''] }, 'turn-clock', /empty program/],
    [{ ...good, events: ['turn.begin'] }, 'turn-clock', /`events` has unknown value "turn.begin"/],
    [{ ...good, events: 'turn.end' }, 'turn-clock', /`events` must be an array/],
    [{ ...good, ui: ['sidebar'] }, 'turn-clock', /`ui` has unknown value "sidebar"/],
    [{ ...good, permissions: ['shell'] }, 'turn-clock', /`permissions` has unknown value "shell"/],
    [{ ...good, protocol: 2 }, 'turn-clock', /`protocol` must be 1/],
    [[], 'turn-clock', /must be a JSON object/],
  ]
  for (const [value, folder, error] of cases) {
    const result = validateManifest(value, folder)
    assert.equal(result.ok, false, JSON.stringify(value))
    if (!result.ok) assert.match(result.error, error)
  }
})

test('reading: not JSON, too large, missing', () => {
  const box = sandbox()
  try {
    const dir = join(box.home, 'm')
    mkdirSync(dir)
    writeFileSync(join(dir, 'mod.json'), '{"name":')
    const broken = readManifest(dir, 'm')
    assert.ok(!broken.ok && /is not valid JSON/.test(broken.error))
    writeFileSync(
      join(dir, 'mod.json'),
      `{"name":"m","run":["x"],"description":"${'x'.repeat(70_000)}"}`,
    )
    const large = readManifest(dir, 'm')
    assert.ok(!large.ok && /is larger than 64 KB/.test(large.error))
    const missing = readManifest(join(box.home, 'none'), 'none')
    assert.ok(!missing.ok && /cannot be read \(ENOENT\)/.test(missing.error))
  } finally {
    box.cleanup()
  }
})
