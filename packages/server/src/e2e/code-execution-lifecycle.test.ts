import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CODE_EXECUTION_TYPE } from '@syntic/protocol'
import { CodeExecutionServer, openDriver } from './code-execution-setup.js'
import { type ModelAction, scriptedModel } from './model-script.js'

type Json = Record<string, unknown>

function run(language: string, code: string): ModelAction {
  return { calls: [{ name: CODE_EXECUTION_TYPE, arguments: JSON.stringify({ language, code }) }] }
}

function model(actions: ModelAction[]) {
  return scriptedModel((_view, turn) => actions[turn] ?? { text: 'done' })
}

const chat = (extra: Json = {}) => ({
  model: 'm',
  tools: [{ type: CODE_EXECUTION_TYPE, ...extra }],
  messages: [{ role: 'user', content: 'x' }],
})

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('condition never held')
}

describe('code execution: lifetimes, limits, formats', () => {
  let sandbox: Awaited<ReturnType<typeof openDriver>>
  before(async () => {
    sandbox = await openDriver()
  })
  after(async () => {
    await sandbox.close()
  })

  it('kills a run at the run timeout and says so; 503 overloaded with Retry-After when full', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, {
      sandbox: { runTimeoutMs: 1500, maxSandboxes: 1 },
    })
    try {
      const key = await api.key()
      api.upstream.setDefault(model([run('python', 'import time\ntime.sleep(30)')]))
      const response = await api.post('/v1/chat/completions', key, chat())
      assert.equal(response.status, 200)
      const body = (await response.json()) as {
        choices: { message: { server_tool_calls: Json[] } }[]
      }
      assert.equal(body.choices[0]!.message.server_tool_calls[0]!.status, 'timeout')
      const full = await api.post('/v1/chat/completions', key, chat())
      assert.equal(full.status, 503)
      assert.ok(Number(full.headers.get('retry-after')) > 0)
      assert.equal(((await full.json()) as { error: { code: string } }).error.code, 'overloaded')
    } finally {
      await api.close()
    }
  })

  it('answers 400 server_tool_not_supported for a model configured without it', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, {
      models: { Plain: { id: 'up', server_tools: ['syntic_tool_search'] }, Full: 'up' },
    })
    try {
      const key = await api.key()
      const response = await api.post('/v1/chat/completions', key, { ...chat(), model: 'Plain' })
      assert.equal(response.status, 400)
      const body = (await response.json()) as { error: { code: string; param: string } }
      assert.equal(body.error.code, 'server_tool_not_supported')
      assert.equal(body.error.param, 'tools[0].type')
      assert.equal(api.upstream.requests.length, 0)
    } finally {
      await api.close()
    }
  })

  it('messages: anthropic upstream, the SDK stream and JSON, blocks, container and seconds', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, { format: 'anthropic' })
    try {
      const key = await api.key()
      api.upstream.setDefault(model([run('python', 'print(2 + 3)')]))
      const client = api.anthropic(key)
      const params = {
        model: 'm',
        max_tokens: 100,
        include: ['code_execution.code'],
        tools: [{ type: CODE_EXECUTION_TYPE }],
        messages: [{ role: 'user' as const, content: 'add' }],
      } as never
      const final = (await client.messages.stream(params).finalMessage()) as unknown as Json & {
        content: Json[]
        usage: Json
      }
      const types = final.content.map((b) => b.type)
      assert.deepEqual(types.slice(0, 2), ['server_tool_use', 'syntic_code_execution_result'])
      assert.equal(final.content[1]!.stdout, '5\n')
      assert.match(String((final.container as Json).id), /^cntr_/)
      assert.deepEqual(final.usage.server_tool_use, { code_execution_seconds: 5 })
      api.upstream.setDefault(model([run('bash', 'echo x > /mnt/output/x.txt')]))
      const response = await api.post('/v1/messages', key, {
        model: 'm',
        max_tokens: 100,
        tools: [{ type: CODE_EXECUTION_TYPE }],
        messages: [{ role: 'user', content: 'write' }],
      })
      assert.equal(response.status, 200)
      const body = (await response.json()) as Json & { files: Json[]; content: Json[] }
      assert.equal(body.files[0]!.filename, 'x.txt')
      assert.equal((body.content[0]!.input as Json).code, undefined)
      // The assistant turn sent back with its blocks is accepted and stripped before the upstream.
      api.upstream.setDefault(model([]))
      const again = await api.post('/v1/messages', key, {
        model: 'm',
        max_tokens: 100,
        tools: [
          { type: CODE_EXECUTION_TYPE, container: { id: (body.container as { id: string }).id } },
        ],
        messages: [
          { role: 'user', content: 'write' },
          { role: 'assistant', content: body.content },
          { role: 'user', content: 'thanks' },
        ],
      })
      assert.equal(again.status, 200)
      const sent = JSON.stringify(api.upstream.requests.at(-1)!.body)
      assert.ok(!sent.includes('syntic_code_execution_result'))
    } finally {
      await api.close()
    }
  })

  it('expires idle containers: the reaper removes the sandbox and reuse is 404', async () => {
    const api = await CodeExecutionServer.start(sandbox.driver, {
      sandbox: { idleMs: 1000, reapIntervalMs: 200 },
    })
    try {
      const key = await api.key()
      api.upstream.setDefault(model([run('bash', 'true')]))
      const body = (await (await api.post('/v1/chat/completions', key, chat())).json()) as {
        container: { id: string; expires_at: number }
      }
      const live = await api.store.listLiveContainers()
      const record = live.find((c) => c.id === body.container.id)!
      await until(async () => !(await sandbox.driver.list()).some((s) => s.id === record.sandboxId))
      await until(
        async () => !(await api.store.listLiveContainers()).some((c) => c.id === record.id),
      )
      const reuse = await api.post(
        '/v1/chat/completions',
        key,
        chat({ container: { id: (body.container as { id: string }).id } }),
      )
      assert.equal(reuse.status, 404)
    } finally {
      await api.close()
    }
  })

  it('a new server over the same store destroys orphans and forgets their containers', async () => {
    const first = await CodeExecutionServer.start(sandbox.driver)
    const key = await first.key()
    first.upstream.setDefault(model([run('bash', 'true')]))
    const body = (await (await first.post('/v1/chat/completions', key, chat())).json()) as {
      container: { id: string }
    }
    const record = (await first.store.listLiveContainers()).find((c) => c.id === body.container.id)!
    await first.close(true)
    const restarted = await sandbox.reopen()
    const second = await CodeExecutionServer.start(restarted, { home: first.home })
    try {
      assert.ok(!(await restarted.list()).some((s) => s.id === record.sandboxId))
      assert.ok(!(await second.store.listLiveContainers()).some((c) => c.id === record.id))
      const reuse = await second.post(
        '/v1/chat/completions',
        key,
        chat({ container: { id: (body.container as { id: string }).id } }),
      )
      assert.equal(reuse.status, 404)
    } finally {
      await second.close()
    }
  })
})
