import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CODE_EXECUTION_TYPE } from '@syntic/protocol'
import { CodeExecutionServer, openDriver } from './code-execution-setup.js'
import { scriptedModel } from './model-script.js'

const chat = {
  model: 'm',
  tools: [{ type: CODE_EXECUTION_TYPE }],
  messages: [{ role: 'user', content: 'x' }],
}

/** Runs one line of Python per request, then answers. */
const runOnce = scriptedModel((view) =>
  view.toolResults.length === 0
    ? {
        calls: [
          {
            name: CODE_EXECUTION_TYPE,
            arguments: JSON.stringify({ language: 'python', code: 'print(1)' }),
          },
        ],
      }
    : { text: 'Done.' },
)

interface ErrorBody {
  error: { code: string; message: string }
}

describe('code execution: the live-container limit comes from the tier', () => {
  let sandbox: Awaited<ReturnType<typeof openDriver>>
  let api: CodeExecutionServer

  before(async () => {
    sandbox = await openDriver()
    api = await CodeExecutionServer.start(sandbox.driver, {
      tiers: { default: { containerLimit: 0 }, team: { containerLimit: 1 } },
    })
    api.upstream.setDefault(runOnce)
  })
  after(async () => {
    await api.close()
    await sandbox.close()
  })

  /** Sends `count` requests one after another; the statuses, and the last 429's error. */
  async function requests(key: string, count: number) {
    const statuses: number[] = []
    let error: ErrorBody['error'] | undefined
    for (let i = 0; i < count; i++) {
      const response = await api.post('/v1/chat/completions', key, chat)
      statuses.push(response.status)
      if (response.status === 429) error = ((await response.json()) as ErrorBody).error
      else await response.body?.cancel()
    }
    return { statuses, error }
  }

  it("answers 429 past the tier's limit, naming the tier and the limit", async () => {
    const key = await api.key('teamco', 'w')
    await api.store.updateOrgSettings('teamco', { tier: 'team' })
    const { statuses, error } = await requests(key, 2)
    assert.deepEqual(statuses, [200, 429])
    assert.equal(error?.code, 'container_limit_reached')
    assert.match(error?.message ?? '', /has 1 live containers, the limit of its tier \(team\)/)
    assert.equal(await api.store.countLiveContainers('teamco', new Date().toISOString()), 1)
  })

  it("an organisation's override wins over its tier", async () => {
    const key = await api.key('pinned', 'w')
    await api.store.updateOrgSettings('pinned', { tier: 'team', containerLimitOverride: 2 })
    const { statuses, error } = await requests(key, 3)
    assert.deepEqual(statuses, [200, 200, 429])
    assert.match(
      error?.message ?? '',
      /has 2 live containers, the limit set for it \(its tier: team\)/,
    )
  })

  it("a tier the config does not name gets the default tier's limit", async () => {
    for (const tier of ['gold', 'constructor', '__proto__']) {
      const org = `unlisted-${tier.replace(/_/g, 'u')}`
      const key = await api.key(org, 'w')
      await api.store.updateOrgSettings(org, { tier })
      const { statuses, error } = await requests(key, 1)
      assert.deepEqual(statuses, [429], tier)
      assert.ok(error?.message.includes(`has 0 live containers, the limit of its tier (${tier})`))
    }
  })
})
