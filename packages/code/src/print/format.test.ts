import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { TranscriptEntry } from '../session/types.js'
import { finishedCount, formatEntry } from './format.js'
import { parseGrantFlags, printGrantPrompt } from './grants.js'

describe('-p output format', () => {
  it('formats every kind of entry', () => {
    const entries: TranscriptEntry[] = [
      { kind: 'user', text: 'two\nlines' },
      { kind: 'assistant', text: 'Answer.' },
      {
        kind: 'tool',
        call_id: 'c',
        tool: 'syntic_shell',
        summary: 'shell: ls',
        status: 'declined',
      },
      { kind: 'note', mod: 'clock', text: '3 s' },
      { kind: 'warning', text: 'mod x was stopped' },
      { kind: 'error', text: 'boom' },
    ]
    assert.deepEqual(entries.map(formatEntry), [
      '> two\n> lines',
      'Answer.',
      '[tool declined] shell: ls',
      '[mod clock] 3 s',
      '[warning] mod x was stopped',
      '[error] boom',
    ])
  })

  it('holds back a running tool and the text still streaming', () => {
    const entries: TranscriptEntry[] = [
      { kind: 'user', text: 'u' },
      { kind: 'assistant', text: 'partial' },
    ]
    assert.equal(finishedCount(entries, 0, true), 1)
    assert.equal(finishedCount(entries, 0, false), 2)
    entries.push({ kind: 'tool', call_id: 'c', tool: 't', summary: 's', status: 'running' })
    entries.push({ kind: 'note', mod: 'm', text: 'n' })
    assert.equal(finishedCount(entries, 0, true), 2)
    assert.equal(finishedCount(entries, 2, true), 0)
  })
})

describe('-p mod grants', () => {
  it('parses flags and answers prompts from them', async () => {
    const grants = parseGrantFlags(['clock=notes', 'clock=session.read', 'git=', 'x=notes,'], false)
    assert.deepEqual(grants.byMod.get('clock'), ['notes', 'session.read'])
    assert.deepEqual(grants.byMod.get('git'), [])
    const prompt = printGrantPrompt(grants)
    const mod = { description: '', source: 'project' as const, dir: '/d' }
    assert.deepEqual(await prompt({ ...mod, name: 'clock' }, ['start', 'notes', 'session.read']), [
      'start',
      'notes',
      'session.read',
    ])
    assert.deepEqual(await prompt({ ...mod, name: 'git' }, ['start', 'notes']), ['start'])
    await assert.rejects(prompt({ ...mod, name: 'other' }, ['notes']), /--grant-mods other=notes/)
    const all = printGrantPrompt(parseGrantFlags([], true))
    assert.deepEqual(await all({ ...mod, name: 'any' }, ['start', 'notes']), ['start', 'notes'])
  })

  for (const spec of ['clock', 'Bad=notes', '=notes', 'clock=root', `${'a'.repeat(65)}=notes`]) {
    it(`rejects ${spec.slice(0, 20)}`, () => assert.throws(() => parseGrantFlags([spec], false)))
  }
})
