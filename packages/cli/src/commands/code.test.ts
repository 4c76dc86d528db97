import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ScriptedUpstream } from '@syntic/server/testing'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'syntic.js')

// A scripted model answer in the OpenAI stream format.
function chunk(delta: Record<string, unknown>, finish: string | null = null): { data: string } {
  return {
    data: JSON.stringify({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }),
  }
}
const text = (t: string) => ({ sse: [chunk({ role: 'assistant', content: t }), chunk({}, 'stop')] })
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  sse: [
    chunk({
      role: 'assistant',
      tool_calls: [
        { index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } },
      ],
    }),
    chunk({}, 'tool_calls'),
  ],
})

// A mod in shell that posts a note when a turn ends, and another as it leaves on `bye`.
const MOD_SCRIPT = `#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"type":"bye"'*) printf '%s\\n' '{"type":"call","id":2,"method":"note.post","params":{"text":"bye from notey"}}'; exit 0 ;;
    *'"event":"turn.end"'*) printf '%s\\n' '{"type":"call","id":1,"method":"note.post","params":{"text":"turn done\\nfor real"}}' ;;
  esac
done
`

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

let base: string
let upstream: ScriptedUpstream
let project: string
let home: string

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [bin, 'code', ...args], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

function upstreamEnv(): Record<string, string> {
  return { OPENAI_BASE_URL: upstream.openaiUrl, SYNTIC_MODEL: 'm1' }
}

before(async () => {
  upstream = await ScriptedUpstream.start()
  base = mkdtempSync(join(tmpdir(), 'syntic-code-cli-'))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(home, { recursive: true })
  const modDir = join(project, '.syntic', 'mods', 'notey')
  mkdirSync(modDir, { recursive: true })
  writeFileSync(
    join(modDir, 'mod.json'),
    JSON.stringify({
      name: 'notey',
      description: 'posts a note when a turn ends',
      run: ['./mod.sh'],
      events: ['turn.end'],
      permissions: ['notes'],
    }),
  )
  writeFileSync(join(modDir, 'mod.sh'), MOD_SCRIPT)
  chmodSync(join(modDir, 'mod.sh'), 0o755)
})
after(async () => {
  await upstream.close()
  rmSync(base, { recursive: true, force: true })
})
afterEach(() => {
  upstream.requests.length = 0
  rmSync(join(home, '.syntic', 'mod-grants.json'), { force: true })
})

describe('syntic code -p', () => {
  it('runs a task end to end: tool calls, the answer and a real mod note in the printed conversation', async () => {
    upstream.enqueue(
      call('c1', 'syntic_text_editor', {
        command: 'create',
        path: 'notes.txt',
        content: 'hello\n',
      }),
      call('c2', 'syntic_shell', { command: 'run', cmd: 'cat notes.txt' }),
      text('All done.'),
    )
    const result = await run(
      ['-p', 'write notes.txt', '--mode', 'acceptEdits', '--grant-mods', 'notey=notes'],
      upstreamEnv(),
    )
    assert.equal(result.stderr, '')
    assert.equal(result.code, 0)
    assert.equal(
      result.stdout,
      [
        '> write notes.txt',
        '[tool ok] editor: create notes.txt',
        '[tool ok] shell: cat notes.txt',
        'All done.',
        '[mod notey] turn done for real',
        '[mod notey] bye from notey',
        '',
      ].join('\n'),
    )
    assert.equal(readFileSync(join(project, 'notes.txt'), 'utf8'), 'hello\n')
    // The note never reached the model.
    assert.ok(!JSON.stringify(upstream.requests).includes('turn done'))
  })

  it('declines edits in default mode (nobody can answer) and says how to allow them', async () => {
    upstream.enqueue(
      call('d1', 'syntic_text_editor', { command: 'create', path: 'nope.txt', content: 'x' }),
      text('I could not.'),
    )
    const result = await run(['-p', 'try', '--no-mods'], upstreamEnv())
    assert.equal(result.code, 0)
    assert.match(result.stdout, /^\[tool declined\] editor: create nope\.txt$/m)
    assert.match(result.stderr, /--mode acceptEdits/)
    assert.ok(!existsSync(join(project, 'nope.txt')))
  })

  it('does not start a mod whose grants the flags do not answer, and remembers nothing', async () => {
    upstream.enqueue(text('Hi.'))
    const result = await run(['-p', 'hi'], upstreamEnv())
    assert.equal(result.code, 0)
    assert.match(result.stdout, /^\[warning\] .*notey.*--grant-mods notey=notes/m)
    assert.doesNotMatch(result.stdout, /\[mod notey\]/)
    assert.ok(!existsSync(join(home, '.syntic', 'mod-grants.json')))
  })

  it('turns an upstream failure into a clear error and exit code 1', async () => {
    upstream.enqueue({ status: 500, json: { error: { message: 'boom' } } })
    upstream.enqueue({ status: 500, json: { error: { message: 'boom' } } })
    const result = await run(['-p', 'hi', '--no-mods'], upstreamEnv())
    assert.equal(result.code, 1)
    assert.match(result.stdout, /^\[error\] the upstream answered 500: boom$/m)
    assert.match(result.stderr, /syntic code: the upstream answered 500: boom/)
  })

  it('reports an unreachable upstream', async () => {
    const result = await run(['-p', 'hi', '--no-mods'], {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      SYNTIC_MODEL: 'm1',
    })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /cannot reach the upstream at http:\/\/127\.0\.0\.1:9\/v1/)
  })

  it('talks to a Syntic server with its key and standard tools by type name', async () => {
    upstream.enqueue(text('From the server.'))
    const result = await run(['-p', 'hi', '--no-mods', '--server', upstream.openaiUrl], {
      SYNTIC_API_KEY: 'sk_live_test',
      SYNTIC_MODEL: 'm1',
    })
    assert.equal(result.code, 0, result.stderr)
    const request = upstream.requests[0]
    assert.equal(request?.headers.authorization, 'Bearer sk_live_test')
    const body = request?.body as { tools: { type: string }[] }
    const tools = body.tools.map((t) => t.type)
    assert.deepEqual(tools, ['syntic_text_editor', 'syntic_shell', 'syntic_memory'])
  })
})

describe('syntic code: bad input', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'no model',
      ['-p', 'x'],
      { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
      /no model: pass --model/,
    ],
    ['no upstream', ['-p', 'x', '--model', 'm'], {}, /no model server configured/],
    ['a bad mode', ['-p', 'x', '--mode', 'yolo'], {}, /--mode.*yolo.*Allowed choices/s],
    [
      'a bad URL',
      ['-p', 'x', '--model', 'm', '--upstream', 'not a url'],
      {},
      /--upstream: "not a url" is not a URL/,
    ],
    [
      'both targets',
      ['-p', 'x', '--model', 'm', '--upstream', 'http://a/v1', '--server', 'http://b/v1'],
      {},
      /either --server or --upstream/,
    ],
    [
      'a server without key',
      ['-p', 'x', '--model', 'm', '--server', 'http://b/v1'],
      {},
      /SYNTIC_API_KEY is not set/,
    ],
    [
      'a bad grant',
      ['-p', 'x', '--model', 'm', '--upstream', 'http://a/v1', '--grant-mods', 'x=root'],
      {},
      /unknown permission "root"/,
    ],
    [
      'a grant without =',
      ['-p', 'x', '--model', 'm', '--upstream', 'http://a/v1', '--grant-mods', 'x'],
      {},
      /expected NAME=PERMISSION/,
    ],
    [
      'an empty prompt',
      ['-p', '  ', '--model', 'm', '--upstream', 'http://a/v1'],
      {},
      /-p needs a prompt/,
    ],
    [
      'a bad max steps',
      ['-p', 'x', '--model', 'm', '--upstream', 'http://a/v1', '--max-steps', '0'],
      {},
      /max steps must be a whole number/,
    ],
    ['an unknown flag', ['-p', 'x', '--frobnicate'], {}, /unknown option '--frobnicate'/],
  ]
  for (const [name, args, env, pattern] of cases) {
    it(`rejects ${name} with a clear message and exit code 2`, async () => {
      const result = await run(args, env)
      assert.match(result.stderr, pattern)
      assert.ok(result.code === 2 || result.code === 1, `exit code ${result.code}`)
      assert.equal(result.stdout, '')
    })
  }

  it('rejects a broken ~/.syntic/code.json', async () => {
    mkdirSync(join(home, '.syntic'), { recursive: true })
    writeFileSync(join(home, '.syntic', 'code.json'), '{"model": 3}')
    try {
      const result = await run(['-p', 'x'], upstreamEnv())
      assert.equal(result.code, 2)
      assert.match(result.stderr, /code\.json: "model" must be a string/)
    } finally {
      rmSync(join(home, '.syntic', 'code.json'))
    }
  })
})

describe('syntic code mod test', () => {
  it('runs the mod and shows its note', async () => {
    const events = join(base, 'events.jsonl')
    writeFileSync(
      events,
      '{"event":"turn.end","data":{"turn":1,"duration_ms":5,"tool_calls":0,"outcome":"answered"}}\n',
    )
    const result = await run([
      'mod',
      'test',
      join(project, '.syntic', 'mods', 'notey'),
      '--events',
      events,
    ])
    assert.match(result.stdout, /\[mod notey\] turn done for real/)
  })

  it('rejects an events file that is not JSON lines', async () => {
    const events = join(base, 'bad.jsonl')
    writeFileSync(events, '{"event":"turn.end","data":{}}\nnot json\n')
    const result = await run([
      'mod',
      'test',
      join(project, '.syntic', 'mods', 'notey'),
      '--events',
      events,
    ])
    assert.equal(result.code, 2)
    assert.match(result.stderr, /bad\.jsonl:2: not JSON/)
  })

  it('refuses an oversized events file by its size, without reading it', async () => {
    const events = join(base, 'huge.jsonl')
    writeFileSync(events, '')
    // Sparse, so it costs no disk; past 2 GiB, where reading it whole fails outright.
    truncateSync(events, 3 * 1024 ** 3)
    try {
      const result = await run([
        'mod',
        'test',
        join(project, '.syntic', 'mods', 'notey'),
        '--events',
        events,
      ])
      assert.equal(result.code, 2)
      assert.match(result.stderr, /huge\.jsonl: larger than 1 MB/)
    } finally {
      rmSync(events)
    }
  })

  it('rejects an unknown event name', async () => {
    const events = join(base, 'unknown.jsonl')
    writeFileSync(events, '{"event":"rm.rf","data":{}}\n')
    const result = await run([
      'mod',
      'test',
      join(project, '.syntic', 'mods', 'notey'),
      '--events',
      events,
    ])
    assert.equal(result.code, 2)
    assert.match(result.stderr, /unknown event "rm\.rf"/)
  })
})
