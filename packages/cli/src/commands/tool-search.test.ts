import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { toolSearchCommand } from './tool-search.js'

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'syntic-tool-search-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

function file(name: string, text: string): string {
  const path = join(scratch, name)
  writeFileSync(path, text)
  return path
}

const catalog = file(
  'catalog.json',
  JSON.stringify([
    {
      type: 'function',
      function: {
        name: 'create_refund',
        description: 'Refund part or all of an order.',
        parameters: { type: 'object', properties: { order_number: { type: 'string' } } },
      },
    },
    { name: 'get_order', description: 'Look up an order.' },
    { name: 'getWeatherForecast', description: 'The weather for a city.' },
  ]),
)
const queries = file(
  'set_a.jsonl',
  [
    '{"id": "q1", "query": "refund an order", "gold": ["create_refund"]}',
    '',
    '{"id": 2, "query": "weather in Paris", "gold": ["getWeatherForecast"]}',
    '{"id": "q3", "query": "order status", "gold": ["get_order", "create_refund"]}',
  ].join('\n'),
)

interface Run {
  status: number
  stdout: string
  stderr: string
}

async function syntic(args: string[]): Promise<Run> {
  const run: Run = { status: 0, stdout: '', stderr: '' }
  await toolSearchCommand({
    stdout: (text) => {
      run.stdout += text
    },
    stderr: (text) => {
      run.stderr += text
    },
    setExitCode: (code) => {
      run.status = code
    },
  }).parseAsync(args, { from: 'user' })
  return run
}

// A real process, for commander's own errors (it exits the process on them).
const entry = `import { toolSearchCommand } from ${JSON.stringify(pathToFileURL(join(here, 'tool-search.js')).href)}
await toolSearchCommand().parseAsync(process.argv.slice(1), { from: 'user' })`

function spawned(args: string[]) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', entry, '--', ...args], {
    encoding: 'utf8',
  })
}

test('query prints ranked names with scores', async () => {
  const run = await syntic(['query', '--catalog', catalog, '--k', '2', 'refund an order'])
  assert.equal(run.status, 0, run.stderr)
  const lines = run.stdout.trimEnd().split('\n')
  assert.equal(lines.length, 2)
  assert.match(lines[0]!, /^\s*\d+\.\d{4} {2}create_refund$/)
  assert.match(lines[1]!, /get_order$/)
  const nothing = await syntic(['query', '--catalog', catalog, 'the of and'])
  assert.equal(nothing.stdout, 'No tool matches.\n')
})

test('eval prints the four figures per set and writes results per query', async () => {
  const out = join(scratch, 'results.jsonl')
  const second = file('set_b.jsonl', '{"id": "b1", "query": "weather", "gold": ["nope"]}\n')
  const run = await syntic([
    'eval',
    '--catalog',
    catalog,
    '--queries',
    queries,
    second,
    '--out',
    out,
  ])
  assert.equal(run.status, 0, run.stderr)
  const [a, b] = run.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line))
  assert.deepEqual(a, {
    set: 'set_a',
    mode: 'keyword',
    queries: 3,
    'recall@1': 0.8333,
    'recall@5': 1,
    'recall@10': 1,
    'ndcg@10': a['ndcg@10'],
  })
  assert.ok(a['ndcg@10'] > 0.9 && a['ndcg@10'] <= 1)
  assert.equal(b.set, 'set_b')
  assert.equal(b['recall@10'], 0)
  const lines = readFileSync(out, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line))
  assert.deepEqual(
    lines.map((l) => l.id),
    ['q1', 2, 'q3', 'b1'],
  )
  assert.equal(lines[0].results[0], 'create_refund')
  assert.equal(lines[1].results[0], 'getWeatherForecast')
})

test('eval --k limits the results retrieved', async () => {
  const out = join(scratch, 'k1.jsonl')
  const run = await syntic([
    'eval',
    '--catalog',
    catalog,
    '--queries',
    queries,
    '--k',
    '1',
    '--out',
    out,
  ])
  assert.equal(run.status, 0, run.stderr)
  for (const line of readFileSync(out, 'utf8').trimEnd().split('\n')) {
    assert.ok(JSON.parse(line).results.length <= 1)
  }
})

test('missing and malformed files are named, with the line of a bad query', async () => {
  const cases: [string[], RegExp][] = [
    [
      ['query', '--catalog', join(scratch, 'absent.json'), 'x'],
      /cannot read the catalog .*absent\.json: no such file/,
    ],
    [['query', '--catalog', scratch, 'x'], /cannot read the catalog .*: is a folder/],
    [['query', '--catalog', file('bad.json', '[{"name": '), 'x'], /bad\.json is not valid JSON/],
    [['query', '--catalog', file('obj.json', '{"tools": []}'), 'x'], /must be a JSON array/],
    [
      ['query', '--catalog', file('noname.json', '[{"name": "a"}, {"description": "b"}]'), 'x'],
      /tool 1: "name"/,
    ],
    [
      ['eval', '--catalog', catalog, '--queries', join(scratch, 'absent.jsonl')],
      /cannot read the query file/,
    ],
    [
      [
        'eval',
        '--catalog',
        catalog,
        '--queries',
        file('badq.jsonl', '{"id":1,"query":"a","gold":[]}\n\n{oops'),
      ],
      /badq\.jsonl, line 3: not valid JSON/,
    ],
    [
      [
        'eval',
        '--catalog',
        catalog,
        '--queries',
        queries,
        '--out',
        join(scratch, 'no', 'dir', 'x.jsonl'),
      ],
      /cannot write/,
    ],
  ]
  for (const [args, message] of cases) {
    const run = await syntic(args)
    assert.equal(run.status, 1, args.join(' '))
    assert.match(run.stderr, message)
    assert.equal(run.stdout, '')
  }
})

test('bad flags are usage errors', () => {
  const cases: [string[], RegExp][] = [
    [
      ['query', '--catalog', catalog, '--mode', 'fuzzy', 'x'],
      /--mode.*Allowed choices are keyword, semantic/,
    ],
    [['query', '--catalog', catalog, '--k', '0', 'x'], /expected an integer from 1 to 10000/],
    [['query', '--catalog', catalog, '--k', '2.5', 'x'], /expected an integer/],
    [['query', '--catalog', catalog, '--k', '99999999', 'x'], /expected an integer/],
    [['query', 'x'], /required option '--catalog <file>' not specified/],
    [['query', '--catalog', catalog], /missing required argument 'query'/],
    [['eval', '--catalog', catalog], /required option '--queries <files...>'/],
  ]
  for (const [args, message] of cases) {
    const run = spawned(args)
    assert.notEqual(run.status, 0, args.join(' '))
    assert.match(run.stderr, message)
  }
})

test('a hostile catalog: huge description and deep schema still answer', async () => {
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 2000; i++) deep = { type: 'object', properties: { inner: deep } }
  const hostile = file(
    'hostile.json',
    JSON.stringify([
      { name: 'huge', description: `refund ${'word '.repeat(200_000)}` },
      { name: 'deep', parameters: deep },
      { name: 'refund_order' },
    ]),
  )
  const run = await syntic(['query', '--catalog', hostile, 'refund'])
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout.split('\n')[0]!, /refund_order$/)
})
