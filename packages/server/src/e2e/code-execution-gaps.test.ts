import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CODE_EXECUTION_TYPE } from '@syntic/protocol'
import { CodeExecutionServer, openDriver } from './code-execution-setup.js'
import { type ModelAction, scriptedModel } from './model-script.js'

type Json = Record<string, unknown>

function run(language: string, code: string): ModelAction {
  return { calls: [{ name: CODE_EXECUTION_TYPE, arguments: JSON.stringify({ language, code }) }] }
}

/** Runs `code` once per request (whatever else runs at the same time), then answers. */
function runOnce(language: string, code: string) {
  return scriptedModel((view) =>
    view.toolResults.length === 0
      ? run(language, code)
      : { text: `Answer. Last result: ${view.toolResults.at(-1)}` },
  )
}

const chat = (extra: Json = {}) => ({
  model: 'm',
  tools: [{ type: CODE_EXECUTION_TYPE, ...extra }],
  messages: [{ role: 'user', content: 'x' }],
})

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('condition never held')
}

describe('code execution: limits under concurrency, cancellation, egress, file purposes', () => {
  let sandbox: Awaited<ReturnType<typeof openDriver>>
  let api: CodeExecutionServer
  let key: string

  before(async () => {
    sandbox = await openDriver()
    api = await CodeExecutionServer.start(sandbox.driver, {
      sandbox: { packageMirrorUrl: 'http://pypi.mirror.example:3141/root/pypi/+simple/' },
    })
    key = await api.key()
  })
  after(async () => {
    await api.close()
    await sandbox.close()
  })

  it('holds the live-container limit against concurrent "auto" requests', async () => {
    const racer = await api.key('racing', 'w')
    await api.store.updateOrgSettings('racing', { containerLimitOverride: 2 })
    api.upstream.setDefault(runOnce('python', 'print(1)'))
    const before = (await sandbox.driver.list()).length
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/v1/chat/completions', racer, chat())),
    )
    const statuses = responses.map((r) => r.status).sort()
    assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429])
    for (const response of responses.filter((r) => r.status === 429)) {
      const body = (await response.json()) as { error: { code: string } }
      assert.equal(body.error.code, 'container_limit_reached')
    }
    const now = new Date().toISOString()
    assert.equal(await api.store.countLiveContainers('racing', now), 2)
    // The losers' sandboxes were destroyed, not leaked.
    assert.equal((await sandbox.driver.list()).length, before + 2)
  })

  it('cancels the running code when the client leaves; the container stays usable', async () => {
    api.upstream.setDefault(
      runOnce(
        'python',
        'import subprocess, time\nsubprocess.Popen(["sleep", "600"])\ntime.sleep(600)',
      ),
    )
    const controller = new AbortController()
    const response = await fetch(`${api.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat(), stream: true }),
      signal: controller.signal,
    })
    assert.equal(response.status, 200)
    const reader = response.body!.getReader()
    let seen = ''
    while (!seen.includes('"running"')) {
      const { value, done } = await reader.read()
      assert.ok(!done, 'the stream ended before the run started')
      seen += Buffer.from(value).toString('utf8')
    }
    controller.abort()
    // The run ends (and is billed) long before its 600 s sleep or the 120 s run timeout.
    await until(async () => {
      const totals = await api.store.usageTotals('acme', 'code_execution', {
        from: '2000-01-01',
        to: '3000-01-01',
      })
      return totals.length > 0
    })
    const [live] = (await api.store.listLiveContainers()).filter((c) => c.org === 'acme')
    assert.ok(live)
    const check = await sandbox.driver.run(live.sandboxId, {
      language: 'bash',
      code: 'pgrep -x sleep || echo none',
    })
    assert.equal(check.stdout.text, 'none\n')
    assert.equal(check.exitCode, 0)
  })

  it('gives sandboxes the package mirror, and the organisation allowlist when it has one', async () => {
    const open = await api.key('open', 'w')
    await api.store.updateOrgSettings('open', { egressAllowlist: ['pypi.org', '*.example.com'] })
    const probe =
      'echo "mirror=$PIP_INDEX_URL"; test -n "$HTTPS_PROXY" && echo proxied || echo direct'
    api.upstream.setDefault(runOnce('bash', probe))
    const response = await api.post('/v1/chat/completions', open, chat())
    assert.equal(response.status, 200)
    const body = (await response.json()) as { choices: { message: { content: string } }[] }
    const text = body.choices[0]!.message.content
    assert.match(text, /mirror=http:\/\/pypi\.mirror\.example:3141\/root\/pypi\/\+simple\//)
    assert.match(text, /proxied/)
    const sent = JSON.stringify(api.upstream.requests.at(-1)!.body)
    assert.match(
      sent,
      /limited to an allowlist of hosts; pip install works through a package mirror/,
    )
  })

  it('takes only code_input files: another purpose is 400 invalid_file_purpose', async () => {
    api.upstream.setDefault(runOnce('bash', 'echo 1 > /mnt/output/result.txt'))
    const made = await api.post('/v1/chat/completions', key, chat())
    const outputId = String(
      ((await made.json()) as { choices: { message: { files: Json[] } }[] }).choices[0]!.message
        .files[0]!.id,
    )
    const input = await api.upload(key, 'data.csv', 'a\n1\n')
    const upstreamCalls = api.upstream.requests.length
    const response = await api.post('/v1/chat/completions', key, chat({ files: [input, outputId] }))
    assert.equal(response.status, 400)
    const body = (await response.json()) as { error: Json }
    assert.equal(body.error.code, 'invalid_file_purpose')
    assert.equal(body.error.type, 'invalid_request_error')
    assert.equal(body.error.param, 'tools[0].files[1]')
    assert.equal(api.upstream.requests.length, upstreamCalls)
  })
})

describe('code execution: the endpoint × upstream format matrix', () => {
  let sandbox: Awaited<ReturnType<typeof openDriver>>
  before(async () => {
    sandbox = await openDriver()
  })
  after(async () => {
    await sandbox.close()
  })

  it('chat completions over an Anthropic-format upstream: JSON and stream', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, { format: 'anthropic' })
    try {
      const key = await api.key()
      api.upstream.setDefault(runOnce('python', 'print(6 * 7)'))
      const response = await api.post('/v1/chat/completions', key, chat())
      assert.equal(response.status, 200)
      const body = (await response.json()) as Json & {
        choices: { message: { content: string; server_tool_calls: Json[] } }[]
        container: { id: string; expires_at: number }
        usage: { server_tool_use: Json }
      }
      const message = body.choices[0]!.message
      assert.match(message.content, /42/)
      assert.equal(message.server_tool_calls[0]!.status, 'ok')
      assert.match(body.container.id, /^cntr_/)
      assert.ok(Number.isInteger(body.container.expires_at))
      assert.deepEqual(body.usage.server_tool_use, { code_execution_seconds: 5 })

      const client = api.openai(key)
      const stream = client.chat.completions.stream({
        model: 'm',
        tools: [{ type: CODE_EXECUTION_TYPE, container: { id: body.container.id } }] as never,
        messages: [{ role: 'user', content: 'again' }],
      })
      const statuses: unknown[] = []
      stream.on('chunk', (chunk) => {
        const delta = (chunk as unknown as { choices: { delta: Json }[] }).choices[0]?.delta
        for (const d of (delta?.server_tool_calls as Json[] | undefined) ?? []) {
          statuses.push(d.status)
        }
      })
      const final = await stream.finalChatCompletion()
      assert.match(String(final.choices[0]!.message.content), /42/)
      assert.deepEqual(statuses, ['running', 'ok'])
    } finally {
      await api.close()
    }
  })

  it('messages streaming over an OpenAI-format upstream, through the Anthropic SDK', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, { format: 'openai' })
    try {
      const key = await api.key()
      api.upstream.setDefault(runOnce('bash', 'echo $((2 + 3))'))
      const final = (await api
        .anthropic(key)
        .messages.stream({
          model: 'm',
          max_tokens: 100,
          include: ['code_execution.code'],
          tools: [{ type: CODE_EXECUTION_TYPE }],
          messages: [{ role: 'user', content: 'add' }],
        } as never)
        .finalMessage()) as unknown as Json & { content: Json[]; usage: Json; container: Json }
      const types = final.content.map((b) => b.type)
      assert.deepEqual(types.slice(0, 2), ['server_tool_use', 'syntic_code_execution_result'])
      assert.equal(final.content[1]!.stdout, '5\n')
      assert.match(String(final.container.id), /^cntr_/)
      assert.deepEqual(final.usage.server_tool_use, { code_execution_seconds: 5 })
    } finally {
      await api.close()
    }
  })
})

describe('code execution on the docker driver (Podman), opened from the server config', () => {
  it('runs a request end to end and removes its sandboxes with the server', async () => {
    const host = process.env.SYNTIC_TEST_DOCKER_HOST
    if (!host) {
      throw new Error('SYNTIC_TEST_DOCKER_HOST is not set: run the tests with `npm test`')
    }
    const api = await CodeExecutionServer.start(null, {
      sandbox: { driver: 'docker', dockerHost: host, fleet: `docker-e2e-${process.pid}` },
    })
    let closed = false
    try {
      const key = await api.key()
      api.upstream.setDefault(
        runOnce('python', 'open("/mnt/output/n.txt", "w").write("7")\nprint(sum(range(5)))'),
      )
      const response = await api.post('/v1/chat/completions', key, chat())
      const text = await response.text()
      assert.equal(response.status, 200, text)
      const body = JSON.parse(text) as Json & {
        choices: { message: { content: string; files: Json[]; server_tool_calls: Json[] } }[]
        container: { id: string }
      }
      const message = body.choices[0]!.message
      assert.equal(message.server_tool_calls[0]!.status, 'ok')
      assert.match(message.content, /stdout:\n10/)
      assert.equal(message.files[0]!.filename, 'n.txt')
      assert.equal((await api.download(key, String(message.files[0]!.id))).toString(), '7')
      assert.doesNotMatch(text, /sbx-|syntic-sbx/)
      await api.close()
      closed = true
    } finally {
      if (!closed) await api.close()
    }
  })
})
