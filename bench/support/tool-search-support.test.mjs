// Checks the tool-search benchmark's parts: the grown catalog keeps its size and names unique, a
// request-shaped copy equals it, and a cold build in a fresh process times a real build or
// refuses arguments it cannot use. Run with `node --test bench/support/`.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { growCatalog, requestCatalog } from './grow-catalog.mjs'

const run = promisify(execFile)
const COLD_BUILD = fileURLToPath(new URL('./cold-build.mjs', import.meta.url))
const data = mkdtempSync(join(tmpdir(), 'syntic-cold-build-'))
after(() => rmSync(data, { recursive: true, force: true }))

const tools = [
  { name: 'create_refund', description: 'Refund an order to the customer', parameters: {} },
  { name: 'get_weather', description: 'Weather for a city today' },
]

test('a grown catalog has the size asked for, unique names and the same vocabulary', () => {
  const grown = growCatalog(tools, 7)
  assert.equal(grown.length, 7)
  assert.equal(new Set(grown.map((t) => t.name)).size, 7)
  assert.equal(grown[2].name, 'create_refund_v2')
  assert.deepEqual(grown[2].description.split(' ').sort(), tools[0].description.split(' ').sort())
  assert.deepEqual(growCatalog(tools, 1), [tools[0]])
})

test('the request-shaped catalog is the grown one parsed from JSON', () => {
  const shaped = requestCatalog(tools, 5)
  assert.equal(JSON.stringify(shaped), JSON.stringify(growCatalog(tools, 5)))
  assert.ok(shaped[0] !== tools[0], 'fresh objects, as a parsed request has')
})

test('a cold build runs in its own process and reports its time', async () => {
  writeFileSync(join(data, 'catalog.json'), JSON.stringify(tools))
  for (const engine of ['syntic', 'minisearch', 'orama']) {
    const { stdout } = await run(process.execPath, [COLD_BUILD, engine, data, '50'])
    const { ms } = JSON.parse(stdout)
    assert.ok(Number.isFinite(ms) && ms > 0, `${engine}: ${stdout}`)
  }
})

test('a cold build refuses an unknown engine or a size that is not a number', async () => {
  for (const args of [['lucene', data, '10'], ['syntic', data, 'many'], ['syntic']]) {
    await assert.rejects(run(process.execPath, [COLD_BUILD, ...args]), (error) => {
      assert.equal(error.code, 2)
      assert.match(error.stderr, /usage: cold-build\.mjs/)
      return true
    })
  }
})
