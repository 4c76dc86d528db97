import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { type Rig, sentMessages, startRig, toolResult } from '../testing/agent-rig.js'
import { editor, shell, textEvents, toolCallEvents } from '../testing/chat-stream.js'
import { INTERRUPTED_TEXT } from './agent.js'
import { EDIT_DECLINED, PLAN_EDIT_DECLINED } from './permissions.js'

let rig: Rig

before(async () => {
  rig = await startRig()
})
after(async () => {
  await rig.close()
})
afterEach(() => {
  rig.events.length = 0
  rig.asked.length = 0
  rig.answers.length = 0
  rig.upstream.requests.length = 0
})

describe('Agent: the loop with real tools', () => {
  it('edits a file, runs a command, answers; events and transcript in order', async () => {
    rig.upstream.enqueue(
      {
        sse: toolCallEvents(
          [editor({ command: 'create', path: 'hello.txt', content: 'hi there\n' }, 'c1')],
          'Creating.',
        ),
      },
      { sse: toolCallEvents([shell('cat hello.txt', 'c2')]) },
      { sse: textEvents('Done: hello.txt says hi there.') },
    )
    const agent = rig.agent('acceptEdits')
    const changes: number[] = []
    agent.onChange = () => changes.push(agent.transcript().length)
    const outcome = await agent.send('make hello.txt')
    assert.equal(outcome, 'answered')
    assert.equal(readFileSync(join(rig.project, 'hello.txt'), 'utf8'), 'hi there\n')
    assert.equal(toolResult(rig, 'c2'), 'hi there\n[exit code: 0]')
    assert.ok(changes.length > 5)

    const view = agent
      .transcript()
      .map((e) =>
        e.kind === 'tool'
          ? `${e.kind}:${e.status}:${e.summary}`
          : `${e.kind}:${'text' in e ? e.text : ''}`,
      )
    assert.deepEqual(view, [
      'user:make hello.txt',
      'assistant:Creating.',
      'tool:ok:editor: create hello.txt',
      'tool:ok:shell: cat hello.txt',
      'assistant:Done: hello.txt says hi there.',
    ])
    assert.deepEqual(
      rig.events.map((e) => e.event),
      ['turn.start', 'tool.start', 'tool.end', 'tool.start', 'tool.end', 'turn.end'],
    )
    assert.deepEqual(rig.events[0], { event: 'turn.start', data: { turn: 1 } })
    const toolEnd = rig.events[2]
    assert.equal(toolEnd?.event, 'tool.end')
    if (toolEnd?.event === 'tool.end') {
      assert.equal(toolEnd.data.call_id, 'c1')
      assert.equal(toolEnd.data.tool, 'syntic_text_editor')
      assert.equal(toolEnd.data.status, 'ok')
      assert.equal(typeof toolEnd.data.duration_ms, 'number')
    }
    const end = rig.events[5]
    assert.equal(end?.event, 'turn.end')
    if (end?.event === 'turn.end') {
      assert.equal(end.data.turn, 1)
      assert.equal(end.data.tool_calls, 2)
      assert.equal(end.data.outcome, 'answered')
    }
    assert.deepEqual(agent.state(), {
      session_id: 'sess-1',
      model: 'm1',
      permission_mode: 'acceptEdits',
      turns: 1,
      busy: false,
      cwd: rig.project,
    })
    // The request carries the standard tools expanded for a bare upstream, and the whole history.
    const body = rig.upstream.requests[0]?.body as {
      tools: { type: string; function: { name: string } }[]
      model: string
    }
    assert.equal(body.model, 'm1')
    assert.deepEqual(
      body.tools.map((t) => `${t.type}:${t.function.name}`),
      ['function:syntic_text_editor', 'function:syntic_shell', 'function:syntic_memory'],
    )
    assert.deepEqual(
      sentMessages(rig, 2).map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'],
    )
  })

  it('keeps the conversation across turns and counts turns', async () => {
    rig.upstream.enqueue({ sse: textEvents('one') }, { sse: textEvents('two') })
    const agent = rig.agent('default')
    await agent.send('first')
    await agent.send('second')
    assert.equal(agent.state().turns, 2)
    assert.deepEqual(
      sentMessages(rig, 1)
        .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content.slice(0, 6) : ''}`)
        .slice(1),
      ['user:first', 'assistant:one', 'user:second'],
    )
  })

  it('answers broken arguments, unknown tools and bad input with error text, never a crash', async () => {
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          { name: 'syntic_shell', args: '{"command": "run", "cmd": ', id: 'b1' },
          { name: 'rm_everything', args: {}, id: 'b2' },
          editor({ command: 'explode', path: 'x' }, 'b3'),
          editor({ command: 'view', path: '../../etc/passwd' }, 'b4'),
        ]),
      },
      { sse: textEvents('sorry') },
    )
    const agent = rig.agent('bypass')
    assert.equal(await agent.send('go'), 'answered')
    assert.match(toolResult(rig, 'b1') ?? '', /^Error: the arguments are not valid JSON/)
    assert.match(toolResult(rig, 'b2') ?? '', /^Error: there is no tool named "rm_everything"/)
    assert.match(toolResult(rig, 'b3') ?? '', /^Error:/)
    assert.match(toolResult(rig, 'b4') ?? '', /^Error:/)
    const statuses = agent.transcript().flatMap((e) => (e.kind === 'tool' ? [e.status] : []))
    assert.deepEqual(statuses, ['error', 'error', 'error', 'error'])
  })

  it('stops a turn that never ends at max steps', async () => {
    rig.upstream.setDefault({ sse: toolCallEvents([shell('true')]) })
    try {
      const agent = rig.agent('bypass', { maxSteps: 3 })
      assert.equal(await agent.send('loop forever'), 'error')
      assert.equal(rig.upstream.requests.length, 3)
      const last = agent.transcript().at(-1)
      assert.equal(last?.kind, 'error')
      assert.match(last?.kind === 'error' ? last.text : '', /max_steps/)
    } finally {
      rig.upstream.setDefault(null)
    }
  })

  it('survives hostile streams: a huge answer, a tool call index out of range', async () => {
    const big = 'x'.repeat(2_000_000)
    rig.upstream.enqueue({ sse: textEvents(big, 50) })
    const agent = rig.agent('default')
    assert.equal(await agent.send('talk'), 'answered')
    const answer = agent.transcript().at(-1)
    assert.equal(answer?.kind === 'assistant' ? answer.text.length : 0, big.length)

    const bad = toolCallEvents([shell('true')])
    const parsed = JSON.parse(bad[1]!.data) as {
      choices: { delta: { tool_calls: { index: number }[] } }[]
    }
    parsed.choices[0]!.delta.tool_calls[0]!.index = 100_000
    bad[1] = { data: JSON.stringify(parsed) }
    rig.upstream.enqueue({ sse: bad })
    assert.equal(await agent.send('again'), 'error')
    assert.match(JSON.stringify(agent.transcript().at(-1)), /index 100000/)
  })
})

describe('Agent: permission modes', () => {
  it('default: asks before an edit; a yes runs it, a no declines it with text', async () => {
    rig.upstream.enqueue(
      { sse: toolCallEvents([editor({ command: 'create', path: 'a.txt', content: 'A' }, 'e1')]) },
      { sse: toolCallEvents([editor({ command: 'create', path: 'b.txt', content: 'B' }, 'e2')]) },
      { sse: textEvents('ok') },
    )
    rig.answers.push('allow', 'deny')
    const agent = rig.agent('default')
    assert.equal(await agent.send('two files'), 'answered')
    assert.deepEqual(rig.asked, [
      { call_id: 'e1', tool: 'syntic_text_editor', summary: 'create a.txt', reason: 'edit' },
      { call_id: 'e2', tool: 'syntic_text_editor', summary: 'create b.txt', reason: 'edit' },
    ])
    assert.ok(existsSync(join(rig.project, 'a.txt')))
    assert.ok(!existsSync(join(rig.project, 'b.txt')))
    assert.equal(toolResult(rig, 'e2'), EDIT_DECLINED)
    const ends = rig.events.flatMap((e) => (e.event === 'tool.end' ? [e.data.status] : []))
    assert.deepEqual(ends, ['ok', 'declined'])
  })

  it('default: views and ordinary commands run without asking; destructive ones are asked', async () => {
    mkdirSync(join(rig.project, 'build'), { recursive: true })
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          editor({ command: 'view', path: '.' }, 'v1'),
          shell('ls', 'v2'),
          shell('rm -rf build', 'v3'),
        ]),
      },
      { sse: toolCallEvents([shell('rm -rf build', 'v4')]) },
      { sse: textEvents('cleaned') },
    )
    rig.answers.push('deny', 'allow')
    const agent = rig.agent('default')
    await agent.send('clean')
    assert.equal(rig.asked.length, 2)
    assert.equal(rig.asked[0]?.reason, 'destructive')
    assert.equal(rig.asked[0]?.summary, 'run rm -rf build')
    assert.match(rig.asked[0]?.detail ?? '', /recursive delete/)
    assert.match(toolResult(rig, 'v3') ?? '', /declined/)
    assert.ok(!existsSync(join(rig.project, 'build')))
    const statuses = agent.transcript().flatMap((e) => (e.kind === 'tool' ? [e.status] : []))
    assert.deepEqual(statuses, ['ok', 'ok', 'declined', 'ok'])
  })

  it('acceptEdits: edits run without asking, destructive commands are still asked', async () => {
    mkdirSync(join(rig.project, 'dist'), { recursive: true })
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          editor({ command: 'create', path: 'c.txt', content: 'C' }, 'a1'),
          shell('rm -rf dist', 'a2'),
        ]),
      },
      { sse: textEvents('ok') },
    )
    const agent = rig.agent('acceptEdits')
    await agent.send('go')
    assert.ok(existsSync(join(rig.project, 'c.txt')))
    assert.deepEqual(
      rig.asked.map((r) => r.reason),
      ['destructive'],
    )
    assert.ok(existsSync(join(rig.project, 'dist')))
  })

  it('plan: edits and writing commands are declined without asking; reading commands run', async () => {
    mkdirSync(join(rig.project, 'keep'), { recursive: true })
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          editor({ command: 'create', path: 'plan.txt', content: 'P' }, 'p1'),
          shell('rm -rf keep', 'p2'),
          shell('touch made-in-plan', 'p3'),
          shell('ls | wc -l', 'p4'),
          editor({ command: 'view', path: '.' }, 'p5'),
        ]),
      },
      { sse: textEvents('Here is the plan.') },
    )
    const agent = rig.agent('plan')
    assert.equal(await agent.send('plan it'), 'answered')
    assert.equal(rig.asked.length, 0)
    assert.equal(toolResult(rig, 'p1'), PLAN_EDIT_DECLINED)
    assert.match(toolResult(rig, 'p2') ?? '', /plan mode .*recursive delete/)
    assert.match(toolResult(rig, 'p3') ?? '', /plan mode .*`touch` is not on the list/)
    assert.match(toolResult(rig, 'p4') ?? '', /\[exit code: 0\]$/)
    assert.ok(!existsSync(join(rig.project, 'plan.txt')))
    assert.ok(!existsSync(join(rig.project, 'made-in-plan')))
    assert.ok(existsSync(join(rig.project, 'keep')))
    const statuses = agent.transcript().flatMap((e) => (e.kind === 'tool' ? [e.status] : []))
    assert.deepEqual(statuses, ['declined', 'declined', 'declined', 'ok', 'ok'])
  })

  it('bypass: nothing is asked', async () => {
    mkdirSync(join(rig.project, 'gone'), { recursive: true })
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          editor({ command: 'create', path: 'd.txt', content: 'D' }),
          shell('rm -rf gone'),
        ]),
      },
      { sse: textEvents('ok') },
    )
    const agent = rig.agent('bypass')
    await agent.send('go')
    assert.equal(rig.asked.length, 0)
    assert.ok(existsSync(join(rig.project, 'd.txt')))
    assert.ok(!existsSync(join(rig.project, 'gone')))
  })

  it('setMode emits mode.change and tells the model with the next prompt', async () => {
    rig.upstream.enqueue({ sse: textEvents('fine') })
    const agent = rig.agent('default')
    agent.setMode('plan')
    agent.setMode('plan')
    assert.deepEqual(rig.events, [{ event: 'mode.change', data: { from: 'default', to: 'plan' } }])
    assert.equal(agent.state().permission_mode, 'plan')
    await agent.send('what now')
    const user = sentMessages(rig, 0).find((m) => m.role === 'user')
    assert.match(String(user?.content), /^\[Permission mode: plan\./)
    assert.match(String(user?.content), /what now$/)
  })

  it('an asker that throws counts as no', async () => {
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          editor({ command: 'create', path: 'thrown.txt', content: 'T' }, 't1'),
        ]),
      },
      { sse: textEvents('ok') },
    )
    const agent = rig.agent('default')
    agent.ask = async () => {
      throw new Error('screen gone')
    }
    await agent.send('go')
    assert.equal(toolResult(rig, 't1'), EDIT_DECLINED)
    assert.ok(!existsSync(join(rig.project, 'thrown.txt')))
  })
})

describe('Agent: interrupt', () => {
  it('interrupts a streaming answer', async () => {
    rig.upstream.enqueue({
      sse: textEvents('a slow answer that takes its time', 30),
      eventDelayMs: 200,
    })
    const agent = rig.agent('default')
    agent.onChange = () => {
      if (agent.transcript().some((e) => e.kind === 'assistant')) agent.interrupt()
    }
    assert.equal(await agent.send('talk slowly'), 'interrupted')
    assert.deepEqual(agent.transcript().at(-1), { kind: 'warning', text: INTERRUPTED_TEXT })
    const end = rig.events.at(-1)
    assert.equal(end?.event === 'turn.end' ? end.data.outcome : '', 'interrupted')
    assert.equal(agent.state().busy, false)
  })

  it('kills a running command, and the next turn gets a fresh shell', async () => {
    rig.upstream.enqueue(
      { sse: toolCallEvents([shell('sleep 60', 's1'), shell('echo never', 's2')]) },
      { sse: toolCallEvents([shell('echo alive', 's3')]) },
      { sse: textEvents('back') },
    )
    const agent = rig.agent('default')
    agent.onEvent = (event) => {
      if (event.event === 'tool.start') setTimeout(() => agent.interrupt(), 100)
    }
    assert.equal(await agent.send('wait'), 'interrupted')
    agent.onEvent = undefined
    assert.equal(await agent.send('again'), 'answered')
    assert.equal(toolResult(rig, 's2'), 'Not run: the user interrupted the turn.')
    assert.equal(toolResult(rig, 's3'), 'alive\n[exit code: 0]')
  })

  it('interrupts a permission question that is never answered', async () => {
    rig.upstream.enqueue({
      sse: toolCallEvents([editor({ command: 'create', path: 'q.txt', content: 'Q' })]),
    })
    const agent = rig.agent('default')
    agent.ask = () => {
      setTimeout(() => agent.interrupt(), 20)
      return new Promise(() => {})
    }
    assert.equal(await agent.send('ask me'), 'interrupted')
    assert.ok(!existsSync(join(rig.project, 'q.txt')))
  })
})

describe('Agent: upstream failures become transcript errors', () => {
  const lastError = (rigAgent: ReturnType<Rig['agent']>) => {
    const last = rigAgent.transcript().find((e) => e.kind === 'error')
    return last?.kind === 'error' ? last.text : ''
  }

  it('a 500 with an error body', async () => {
    rig.upstream.enqueue({ status: 500, json: { error: { message: 'model overloaded' } } })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /the upstream answered 500: model overloaded/)
  })

  it('a stream of garbage', async () => {
    rig.upstream.enqueue({ sse: [{ data: '{not json' }] })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /not valid JSON/)
  })

  it('a body that is not a stream at all', async () => {
    rig.upstream.enqueue({ raw: '<html>oops</html>', headers: { 'content-type': 'text/html' } })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /sent no stream events/)
  })

  it('a disconnect mid-stream keeps the text so far', async () => {
    rig.upstream.enqueue({ sse: textEvents('partial answer here', 6), breakAfter: 3 })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /broke off|terminated|reach/)
    assert.ok(agent.transcript().some((e) => e.kind === 'assistant' && e.text.length > 0))
  })

  it('an upstream that is not there', async () => {
    const agent = rig.agent('default', { upstreamUrl: 'http://127.0.0.1:9/v1' })
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /cannot reach the upstream at http:\/\/127\.0\.0\.1:9\/v1/)
  })

  it('a stream that ends cleanly before the model finished', async () => {
    rig.upstream.enqueue({ sse: textEvents('cut', 2).slice(0, -1) })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /ended before the model finished/)
  })

  it('a chunk without choices', async () => {
    rig.upstream.enqueue({ sse: [{ data: '{"id":"x","object":"chat.completion.chunk"}' }] })
    const agent = rig.agent()
    assert.equal(await agent.send('hi'), 'error')
    assert.match(lastError(agent), /without choices/)
  })
})

describe('Agent: memory', () => {
  it('keeps memory in ~/.syntic/memory/<project id>/', async () => {
    rig.upstream.enqueue(
      {
        sse: toolCallEvents([
          {
            name: 'syntic_memory',
            args: { command: 'write', path: '/memories/n.md', content: 'remember' },
          },
        ]),
      },
      { sse: textEvents('noted') },
    )
    const agent = rig.agent('plan')
    await agent.send('remember this')
    const { projectMemoryDir } = await import('./tool-box.js')
    assert.equal(
      readFileSync(join(projectMemoryDir(rig.home, rig.project), 'n.md'), 'utf8'),
      'remember',
    )
  })
})
