// Finding mods, broken manifests, the project-over-user rule and remembered grants.
import assert from 'node:assert/strict'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { grantsFile } from './grants.js'
import { ModHost } from './host.js'
import type { GrantPrompt } from './host-port.js'
import type { TraceEntry } from './mod-connection.js'
import { STATE, sandbox, writeMod } from './test-support.js'

const QUIET = ['sh', '-c', 'exec cat >/dev/null']

function recorder(answer: (wanted: string[]) => string[]) {
  const asked: { name: string; source?: string; wanted: string[] }[] = []
  const prompt: GrantPrompt = async (mod, wanted) => {
    asked.push({ name: mod.name, source: mod.source, wanted })
    return answer(wanted)
  }
  return { asked, prompt }
}

async function hellos(home: string, project: string, prompt: GrantPrompt) {
  const sent: Record<string, unknown>[] = []
  const host = new ModHost({
    projectDir: project,
    homeDir: home,
    grantPrompt: prompt,
    trace: (_m: string, e: TraceEntry) => {
      if (e.kind === 'sent' && e.line.includes('"hello"')) sent.push(JSON.parse(e.line))
    },
  })
  await host.start()
  const running = host.running()
  await host.stop()
  return { sent, running, lines: host.tick(STATE).lines }
}

test('grants are asked once, remembered per mod and folder, and only new permissions are asked again', async () => {
  const box = sandbox()
  try {
    writeMod(box.home, 'g', { run: QUIET, permissions: ['notes'] })
    const first = recorder(() => [])
    const one = await hellos(box.home, box.project, first.prompt)
    assert.deepEqual(first.asked, [{ name: 'g', source: 'user', wanted: ['notes'] }])
    assert.deepEqual(one.sent[0]?.granted, [])
    assert.equal(statSync(grantsFile(box.home)).mode & 0o777, 0o600)

    const second = recorder((w) => w)
    const two = await hellos(box.home, box.project, second.prompt)
    assert.deepEqual(second.asked, [])
    assert.deepEqual(two.sent[0]?.granted, [])

    writeMod(box.home, 'g', { run: QUIET, permissions: ['notes', 'session.read'] })
    const third = recorder((w) => w)
    const three = await hellos(box.home, box.project, third.prompt)
    assert.deepEqual(third.asked, [{ name: 'g', source: 'user', wanted: ['session.read'] }])
    assert.deepEqual(three.sent[0]?.granted, ['session.read'])
  } finally {
    box.cleanup()
  }
})

test('a project mod needs approval to start, and a refusal is remembered', async () => {
  const box = sandbox()
  try {
    writeMod(box.project, 'p', { run: QUIET, permissions: ['notes'] })
    const refuse = recorder(() => ['notes'])
    const one = await hellos(box.home, box.project, refuse.prompt)
    assert.deepEqual(refuse.asked, [{ name: 'p', source: 'project', wanted: ['start', 'notes'] }])
    assert.deepEqual(one.running, [])
    assert.match(
      one.lines[0]?.text ?? '',
      /^mod p was not started: you did not approve this project mod/,
    )
    const again = recorder((w) => w)
    const two = await hellos(box.home, box.project, again.prompt)
    assert.deepEqual(again.asked, [])
    assert.deepEqual(two.running, [])

    writeMod(box.project, 'q', { run: QUIET })
    const approve = recorder((w) => w)
    const three = await hellos(box.home, box.project, approve.prompt)
    assert.deepEqual(approve.asked, [{ name: 'q', source: 'project', wanted: ['start'] }])
    assert.deepEqual(three.running, ['q'])
  } finally {
    box.cleanup()
  }
})

test('the project mod wins a name clash, with a warning', async () => {
  const box = sandbox()
  try {
    writeMod(box.home, 'dup', { run: QUIET, description: 'mine' })
    const projectDir = writeMod(box.project, 'dup', { run: QUIET, description: 'theirs' })
    const all = recorder((w) => w)
    const result = await hellos(box.home, box.project, all.prompt)
    assert.deepEqual(all.asked, [{ name: 'dup', source: 'project', wanted: ['start'] }])
    assert.deepEqual(result.running, ['dup'])
    assert.equal(
      result.lines[0]?.text,
      `mod dup: the project's mod in ${projectDir} is used instead of yours in ${join(box.home, '.syntic', 'mods', 'dup')}`,
    )
  } finally {
    box.cleanup()
  }
})

test('a broken manifest keeps the mod from starting, naming the file and field', async () => {
  const box = sandbox()
  try {
    const dir = writeMod(box.home, 'broken', { run: QUIET, colour: 'red' })
    writeMod(box.home, 'typo', { run: QUIET, ui: ['sidebar'] })
    writeMod(box.home, 'fine', { run: QUIET })
    writeFileSync(join(writeMod(box.home, 'nojson', { run: QUIET }), 'mod.json'), '{nope')
    const result = await hellos(box.home, box.project, recorder((w) => w).prompt)
    assert.deepEqual(result.running, ['fine'])
    const texts = result.lines.map((l) => l.text)
    assert.ok(
      texts.includes(
        `mod broken was not started: ${join(dir, 'mod.json')} unknown field \`colour\``,
      ),
    )
    assert.ok(
      texts.some((t) =>
        /^mod typo was not started: .*typo\/mod.json `ui` has unknown value "sidebar"/.test(t),
      ),
    )
    assert.ok(
      texts.some((t) =>
        /^mod nojson was not started: .*nojson\/mod.json is not valid JSON/.test(t),
      ),
    )
  } finally {
    box.cleanup()
  }
})

test('a corrupt grants file is reported and replaced; a failing prompt starts nothing', async () => {
  const box = sandbox()
  try {
    writeMod(box.home, 'g', { run: QUIET, permissions: ['notes'] })
    writeFileSync(join(box.home, '.syntic', 'mod-grants.json'), '[oops')
    const result = await hellos(box.home, box.project, async () => {
      throw new Error('no terminal')
    })
    assert.deepEqual(result.running, [])
    assert.match(result.lines[0]?.text ?? '', /mod-grants.json is not valid; every mod will ask/)
    assert.match(
      result.lines[1]?.text ?? '',
      /^mod g was not started: the permission prompt failed \(no terminal\)/,
    )
    const ok = await hellos(box.home, box.project, async (_m, w) => w)
    assert.deepEqual(ok.running, ['g'])
    assert.equal(JSON.parse(readFileSync(grantsFile(box.home), 'utf8')).grants.length, 1)
  } finally {
    box.cleanup()
  }
})
