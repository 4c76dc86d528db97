import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { CODE_EXECUTION_TYPE } from '@syntic/protocol'
import { CHUNK_BYTES } from '@syntic/sandbox'
import { CodeExecutionServer, openDriver } from './code-execution-setup.js'
import { type ModelAction, scriptedModel, type UpstreamView } from './model-script.js'

type Json = Record<string, unknown>

const ORDERS = [
  'order_id,date,amount',
  '1,2025-07-03,100',
  '2,2025-07-20,120',
  '3,2025-08-02,130',
  '4,2025-08-25,150',
  '5,2025-09-10,160',
  '6,2025-09-28,170',
].join('\n')

const ANALYSIS = `
import pandas as pd, matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
df = pd.read_csv('/mnt/input/orders.csv', parse_dates=['date'])
aov = df.groupby(df.date.dt.month).amount.mean()
aov.plot(kind='bar'); plt.savefig('/mnt/output/aov_by_month.png')
kept = 41
print('AOV', aov.to_dict())
`

function run(language: string, code: string): ModelAction {
  return { calls: [{ name: CODE_EXECUTION_TYPE, arguments: JSON.stringify({ language, code }) }] }
}

/** A model that runs `actions` in order, then answers with the last tool result it read. */
function model(actions: ModelAction[], views: UpstreamView[] = []) {
  return scriptedModel((view, turn) => {
    const action = actions[turn]
    return action ?? { text: `Answer. Last result: ${view.toolResults.at(-1) ?? ''}` }
  }, views)
}

const tools = (extra: Json = {}) => [{ type: CODE_EXECUTION_TYPE, ...extra }]

describe('code execution through the API', () => {
  let sandbox: Awaited<ReturnType<typeof openDriver>>
  let api: CodeExecutionServer
  let key: string
  let containerId: string

  before(async () => {
    sandbox = await openDriver()
    api = await CodeExecutionServer.start(sandbox.driver)
    key = await api.key()
  })
  after(async () => {
    await api.close()
    await sandbox.close()
  })

  it('runs the spec example: input file, pandas, a chart in /mnt/output, the answer, billing', async () => {
    const fileId = await api.upload(key, 'orders.csv', ORDERS)
    const views: UpstreamView[] = []
    api.upstream.setDefault(model([run('python', ANALYSIS)], views))
    const response = await api.post('/v1/chat/completions', key, {
      model: 'Amara S1.2',
      tools: tools({ files: [fileId] }),
      messages: [{ role: 'user', content: 'Plot average order value by month.' }],
    })
    assert.equal(response.status, 200)
    const body = (await response.json()) as Json & {
      choices: { message: Json & { server_tool_calls: Json[]; files: Json[]; content: string } }[]
      container: { id: string; expires_at: number }
      usage: Json & { server_tool_use: { code_execution_seconds: number } }
    }
    const message = body.choices[0]!.message
    const [call] = message.server_tool_calls
    assert.equal(call!.type, CODE_EXECUTION_TYPE)
    assert.equal(call!.status, 'ok')
    assert.equal(call!.exit_code, 0)
    assert.ok(typeof call!.duration_ms === 'number')
    assert.equal(call!.code, undefined, 'code only with the include')
    assert.match(message.content, /AOV \{7: 110\.0, 8: 140\.0, 9: 165\.0\}/)
    assert.equal(message.files.length, 1)
    const file = message.files[0] as { id: string; filename: string; bytes: number; source: string }
    assert.equal(file.filename, 'aov_by_month.png')
    assert.equal(file.source, 'code_execution')
    const png = await api.download(key, file.id)
    assert.equal(png.length, file.bytes)
    assert.equal(png.subarray(1, 4).toString(), 'PNG')
    assert.match(body.container.id, /^cntr_/)
    assert.ok(body.container.expires_at > Date.now() / 1000)
    assert.equal(body.usage.server_tool_use.code_execution_seconds, 5)
    containerId = body.container.id
    // The model saw the tool, the input file named in its description, and the run's output.
    assert.ok(views[0]!.toolNames.includes(CODE_EXECUTION_TYPE))
    assert.match(views[0]!.tools[0]!.description, /orders\.csv/)
    assert.match(views[1]!.toolResults[0]!, /exit code: 0[\s\S]*aov_by_month\.png/)
    assert.equal((views[0]!.body as Json).include, undefined)
    const month = new Date().toISOString().slice(0, 7)
    const totals = await api.store.usageTotals('acme', 'code_execution', {
      from: `${month}-01T00:00:00.000Z`,
      to: '9999-01-01T00:00:00.000Z',
    })
    assert.deepEqual(
      totals.map((t) => [t.workspace, t.seconds, t.requests]),
      [['research', 5, 1]],
    )
  })

  it('reuses a container: files and Python variables survive; include adds code and output', async () => {
    api.upstream.setDefault(
      model([run('python', 'print(kept + 1)'), run('bash', 'ls /mnt/input /mnt/output')]),
    )
    const response = await api.post('/v1/chat/completions', key, {
      model: 'm',
      include: ['code_execution.code'],
      tools: tools({ container: { id: containerId } }),
      messages: [{ role: 'user', content: 'again' }],
    })
    assert.equal(response.status, 200)
    const body = (await response.json()) as {
      choices: { message: { server_tool_calls: Json[]; files?: Json[] } }[]
      container: { id: string }
    }
    const [first, second] = body.choices[0]!.message.server_tool_calls
    assert.equal(first!.stdout, '42\n')
    assert.equal(first!.code, 'print(kept + 1)')
    assert.equal(first!.language, 'python')
    assert.match(String(second!.stdout), /orders\.csv[\s\S]*aov_by_month\.png/)
    assert.equal(body.choices[0]!.message.files, undefined, 'old outputs are not new files')
    assert.equal(body.container.id, containerId)
  })

  it('streams a file larger than a sandbox piece into /mnt/input and out of /mnt/output', async () => {
    const big = Buffer.alloc(CHUNK_BYTES * 2 + 4321)
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 11)) & 0xff
    const form = new FormData()
    form.append('purpose', 'code_input')
    form.append('file', new Blob([big]), 'big.bin')
    const uploaded = await fetch(`${api.server.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    })
    const fileId = ((await uploaded.json()) as { id: string }).id
    api.upstream.setDefault(
      model([
        run(
          'python',
          'import hashlib\ndata = open("/mnt/input/big.bin", "rb").read()\nopen("/mnt/output/reversed.bin", "wb").write(data[::-1])\nprint(hashlib.sha256(data).hexdigest())',
        ),
      ]),
    )
    const response = await api.post('/v1/chat/completions', key, {
      model: 'm',
      tools: tools({ files: [fileId] }),
      messages: [{ role: 'user', content: 'reverse it' }],
    })
    assert.equal(response.status, 200)
    const body = (await response.json()) as {
      choices: { message: { content: string; files: { id: string; bytes: number }[] } }[]
    }
    const message = body.choices[0]!.message
    assert.match(message.content, new RegExp(createHash('sha256').update(big).digest('hex')))
    assert.equal(message.files.length, 1)
    assert.equal(message.files[0]!.bytes, big.length)
    const reversed = await api.download(key, message.files[0]!.id)
    assert.ok(reversed.equals(Buffer.from(big).reverse()))
  })

  it('answers 404 container_not_found for another workspace, unknown and malformed ids', async () => {
    const other = await api.key('acme', 'other-team')
    const otherOrg = await api.key('globex', 'research')
    const errors = new Set<string>()
    const headers = new Set<string>()
    for (const [k, id] of [
      [other, containerId],
      [otherOrg, containerId],
      [key, 'cntr_01JBXK0000000000000000000'],
      [key, 'sbx-0123456789abcdef'],
    ] as const) {
      const before = api.upstream.requests.length
      const response = await api.post('/v1/chat/completions', k, {
        model: 'm',
        tools: tools({ container: { id } }),
        messages: [{ role: 'user', content: 'x' }],
      })
      assert.equal(response.status, 404)
      const body = (await response.json()) as {
        error: { code: string; param: string }
        request_id: string
      }
      assert.equal(body.error.code, 'container_not_found')
      assert.equal(body.error.param, 'tools[0].container.id')
      assert.equal(api.upstream.requests.length, before, 'no upstream call')
      // Indistinguishable: the same error, message and headers whoever asks for whichever id.
      errors.add(JSON.stringify(body.error))
      assert.ok(!JSON.stringify(body).includes(id), 'the id is not echoed')
      const names = [...response.headers.keys()].filter((h) => !/^(date|x-request-id)$/.test(h))
      headers.add(names.sort().join(','))
    }
    assert.equal(errors.size, 1, [...errors].join('\n'))
    assert.equal(headers.size, 1, [...headers].join('\n'))
  })

  it('streams running then the result, files and container, through both openai SDK readers', async () => {
    api.upstream.setDefault(model([run('bash', 'echo hi > /mnt/output/hi.txt; echo done')]))
    const client = api.openai(key)
    const params = {
      model: 'm',
      tools: tools() as never,
      messages: [{ role: 'user' as const, content: 'go' }],
      stream: true as const,
      stream_options: { include_usage: true },
    }
    const deltas: Json[] = []
    let container: Json | undefined
    let usage: Json | undefined
    for await (const chunk of await client.chat.completions.create(params)) {
      const c = chunk as unknown as Json & { choices: { delta: Json }[] }
      for (const d of (c.choices[0]?.delta.server_tool_calls as Json[] | undefined) ?? [])
        deltas.push(d)
      if (c.container) container = c.container as Json
      if (c.usage) usage = c.usage as Json
    }
    assert.deepEqual(
      deltas.map((d) => d.status),
      ['running', 'ok'],
    )
    assert.match(String((container as { id: string }).id), /^cntr_/)
    assert.deepEqual(usage?.server_tool_use, { code_execution_seconds: 5 })

    api.upstream.setDefault(model([run('python', 'print(6 * 7)')]))
    const stream = client.chat.completions.stream({ ...params, stream: true })
    const final = await stream.finalChatCompletion()
    assert.match(String(final.choices[0]!.message.content), /42/)
  })

  it('a crash is a normal result; bad arguments are an error record; max_runs ends the runs', async () => {
    const views: UpstreamView[] = []
    api.upstream.setDefault(
      model(
        [
          run('python', 'raise ValueError("boom")'),
          {
            calls: [{ name: CODE_EXECUTION_TYPE, arguments: '{"language": "ruby", "code": "1"}' }],
          },
          run('python', 'print(1)'),
        ],
        views,
      ),
    )
    const response = await api.post('/v1/chat/completions', key, {
      model: 'm',
      tools: tools({ max_runs: 2 }),
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(response.status, 200)
    const body = (await response.json()) as {
      choices: { message: { server_tool_calls: Json[] } }[]
    }
    const calls = body.choices[0]!.message.server_tool_calls
    assert.deepEqual(
      calls.map((c) => [c.status, c.exit_code]),
      [
        ['error', 1],
        ['error', null],
        ['ok', 0],
      ],
    )
    assert.match(views[1]!.toolResults[0]!, /ValueError: boom/)
    assert.match(views[3]!.toolResults[0]!, /used every code run/)
    assert.ok(!views[3]!.toolNames.includes(CODE_EXECUTION_TYPE), 'the tool is taken away')
  })

  it('rejects malformed, hostile and oversized tool entries with 400 before any upstream call', async () => {
    const cases: [Json, string][] = [
      [{ max_runs: 0 }, 'tools[0].max_runs'],
      [{ max_runs: 51 }, 'tools[0].max_runs'],
      [{ max_runs: 2.5 }, 'tools[0].max_runs'],
      [{ container: 'fresh' }, 'tools[0].container'],
      [{ container: { id: 'cntr_x', extra: 1 } }, 'tools[0].container'],
      [{ container: { id: 'x'.repeat(300) } }, 'tools[0].container.id'],
      [{ files: 'file_1' }, 'tools[0].files'],
      [{ files: Array.from({ length: 101 }, (_, i) => `file_${i}`) }, 'tools[0].files'],
      [{ unknown: true }, 'tools[0]'],
    ]
    for (const [entry, param] of cases) {
      const before = api.upstream.requests.length
      const response = await api.post('/v1/chat/completions', key, {
        model: 'm',
        tools: tools(entry),
        messages: [{ role: 'user', content: 'x' }],
      })
      assert.equal(response.status, 400, JSON.stringify(entry).slice(0, 80))
      const body = (await response.json()) as { error: { param: string } }
      assert.ok(body.error.param.startsWith(param), `${body.error.param} for ${param}`)
      assert.equal(api.upstream.requests.length, before)
    }
    const twice = await api.post('/v1/messages', key, {
      model: 'm',
      max_tokens: 10,
      tools: [{ type: CODE_EXECUTION_TYPE }, { type: CODE_EXECUTION_TYPE }],
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(twice.status, 400)
    const include = await api.post('/v1/chat/completions', key, {
      model: 'm',
      include: ['code_execution.everything'],
      tools: tools(),
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(include.status, 400)
  })

  it('answers 404 file_not_found, 403 tool_disabled and 429 container_limit_reached', async () => {
    const before = api.upstream.requests.length
    const missing = await api.post('/v1/chat/completions', key, {
      model: 'm',
      tools: tools({ files: ['file_01JBXJZ000000000000000000'] }),
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(missing.status, 404)
    assert.equal(
      ((await missing.json()) as { error: { code: string } }).error.code,
      'file_not_found',
    )

    const limited = await api.key('tiny', 'w')
    await api.store.updateOrgSettings('tiny', { containerLimitOverride: 0 })
    const full = await api.post('/v1/chat/completions', limited, {
      model: 'm',
      tools: tools(),
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(full.status, 429)
    assert.equal(
      ((await full.json()) as { error: { code: string } }).error.code,
      'container_limit_reached',
    )

    const off = await api.key('closed', 'w')
    await api.store.updateOrgSettings('closed', { codeExecution: false })
    const disabled = await api.post('/v1/chat/completions', off, {
      model: 'm',
      tools: tools(),
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.equal(disabled.status, 403)
    assert.equal(
      ((await disabled.json()) as { error: { code: string } }).error.code,
      'tool_disabled',
    )
    assert.equal(api.upstream.requests.length, before)
  })
})
