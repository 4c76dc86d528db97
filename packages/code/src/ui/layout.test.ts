import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ScreenSlots, SlotContent } from '../mods/host-port.js'
import type { TranscriptEntry } from '../session/types.js'
import {
  bandRows,
  bottomPaneMaxRows,
  clampTab,
  panePlacement,
  paneRows,
  sidePaneWidth,
  statusRow,
} from './areas.js'
import { conversationRows, entryRows } from './conversation.js'
import { emptyEditor, insertText } from './line-editor.js'
import { type GrantQuestion, grantKey, permissionKey, questionRows } from './prompts.js'
import { rowText, rowWidth } from './rows.js'
import { composeScreen, type ScreenView } from './screen.js'
import { BAND_MAX_ROWS, PANE_MAX_ROWS } from './screen-limits.js'
import { cellWidth, fitWidth, padTo, singleLine, wrapText } from './text-width.js'

const slot = (mod: string, lines: string[], title?: string): SlotContent => ({ mod, lines, title })
const noSlots: ScreenSlots = { status: [], band: [], pane: [] }

function view(overrides: Partial<ScreenView>): ScreenView {
  return {
    columns: 120,
    rows: 30,
    transcript: [],
    slots: noSlots,
    mode: 'default',
    busy: false,
    spinner: 0,
    editor: emptyEditor(),
    question: null,
    paneTab: 0,
    scroll: 0,
    hint: '',
    ...overrides,
  }
}

describe('text width', () => {
  it('cuts to the width with an ellipsis and leaves short text alone', () => {
    assert.equal(fitWidth('hello', 10), 'hello')
    assert.equal(fitWidth('hello world', 8), 'hello w…')
    assert.equal(cellWidth(fitWidth('hello world', 8)), 8)
    assert.equal(fitWidth('anything', 0), '')
  })

  it('counts wide characters as two cells and never splits one', () => {
    const cut = fitWidth('日本語のテキスト', 7)
    assert.ok(cellWidth(cut) <= 7, cut)
    assert.equal(cut, '日本語…')
    assert.equal(padTo('日本', 6), '日本  ')
  })

  it('removes control and direction-override characters and flattens newlines', () => {
    assert.equal(singleLine('a\u001b[31mb\u202ec\r\nd\te'), 'a[31mbc d  e')
    assert.equal(cellWidth(fitWidth('\u001b[2J'.repeat(50), 10)), 10)
  })

  it('wraps at spaces, hard-wraps long words, keeps paragraphs', () => {
    assert.deepEqual(wrapText('one two three', 7), ['one two', 'three'])
    assert.deepEqual(wrapText('abcdefghij', 4), ['abcd', 'efgh', 'ij'])
    assert.deepEqual(wrapText('a\n\nb', 10), ['a', '', 'b'])
    for (const row of wrapText('x'.repeat(1000), 33)) assert.ok(cellWidth(row) <= 33)
  })

  it('drops a double-width character that cannot fit a one-cell area instead of looping', () => {
    assert.deepEqual(wrapText('日本', 1), [])
  })
})

describe('status row', () => {
  it('shows the mode first, then each mod in order, exactly the width', () => {
    const row = statusRow('acceptEdits', [slot('a', ['12s']), slot('b', ['main*'])], 60)
    const text = rowText(row)
    assert.match(text, /^ mode: acceptEdits {2}│ 12s │ main\*/)
    assert.equal(rowWidth(row), 60)
  })

  it('cuts each mod and the whole row so it never wraps', () => {
    const long = 'x'.repeat(300)
    const row = statusRow('default', [slot('a', [long]), slot('b', [long]), slot('c', ['z'])], 80)
    assert.equal(rowWidth(row), 80)
    assert.ok(rowText(row).includes('…'))
    const one = statusRow('default', [slot('a', [long])], 200)
    assert.ok(rowText(one).trimEnd().length < 70, 'one mod is bounded before the row is')
  })
})

describe('band', () => {
  it('stacks mods in start order and stops at the bound', () => {
    const rows = bandRows([slot('a', ['a1', 'a2']), slot('b', ['b1', 'b2', 'b3'])], 40)
    assert.equal(rows.length, BAND_MAX_ROWS)
    assert.deepEqual(
      rows.map((row) => rowText(row).trim()),
      ['a1', 'a2', 'b1'],
    )
    for (const row of rows) assert.equal(rowWidth(row), 40)
  })

  it('is empty without bands', () => {
    assert.deepEqual(bandRows([], 40), [])
  })
})

describe('pane', () => {
  it('sits on the right from 100 columns, at the bottom below', () => {
    assert.equal(panePlacement(100), 'right')
    assert.equal(panePlacement(99), 'bottom')
    assert.equal(panePlacement(80), 'bottom')
    assert.equal(sidePaneWidth(120), 40)
    assert.equal(sidePaneWidth(400), 48)
    assert.equal(sidePaneWidth(100), 33)
  })

  it('shows one pane as a tab, titled, at most 12 content rows', () => {
    const many = Array.from({ length: 40 }, (_, i) => `row ${i}`)
    const rows = paneRows([slot('a', many, 'Clock'), slot('b', ['b'])], 0, 30, 100)
    assert.equal(rows.length, PANE_MAX_ROWS + 1)
    assert.match(rowText(rows[0]!), /^ Clock {3}b {3}Tab: next/)
    assert.equal(rowText(rows[1]!).trim(), 'row 0')
    const second = paneRows([slot('a', many, 'Clock'), slot('b', ['b'])], 1, 30, 100)
    assert.equal(second.length, 2)
    assert.equal(rowText(second[1]!).trim(), 'b')
  })

  it('fits the rows it is given, and the bottom pane takes at most a third', () => {
    const rows = paneRows([slot('a', ['1', '2', '3', '4', '5'])], 0, 30, 3)
    assert.equal(rows.length, 3)
    assert.equal(bottomPaneMaxRows(24), 8)
    assert.equal(bottomPaneMaxRows(100), PANE_MAX_ROWS + 1)
    assert.equal(bottomPaneMaxRows(3), 2)
    assert.deepEqual(paneRows([], 0, 30, 10), [])
  })

  it('wraps the tab index around', () => {
    assert.equal(clampTab(5, 3), 2)
    assert.equal(clampTab(-1, 3), 2)
  })
})

describe('conversation', () => {
  const entries: TranscriptEntry[] = [
    { kind: 'user', text: 'fix the test' },
    { kind: 'assistant', text: 'Looking.' },
    { kind: 'tool', call_id: 'c1', tool: 'syntic_shell', summary: 'shell: npm test', status: 'ok' },
    { kind: 'tool', call_id: 'c2', tool: 'e', summary: 'editor: replace a.ts', status: 'declined' },
    { kind: 'note', mod: 'clock', text: 'turn took 3s' },
    { kind: 'warning', text: 'mod x stopped' },
    { kind: 'error', text: 'upstream failed' },
  ]

  it('gives each kind its look; a tool call is one row whatever its length', () => {
    const texts = entries.map((entry) => entryRows(entry, 40).map(rowText))
    assert.deepEqual(texts[0], ['> fix the test'])
    assert.deepEqual(texts[2], ['✓ shell: npm test'])
    assert.deepEqual(texts[3], ['⊘ editor: replace a.ts (declined)'])
    assert.deepEqual(texts[4], ['[mod clock] turn took 3s'])
    assert.deepEqual(texts[5], ['warning: mod x stopped'])
    assert.deepEqual(texts[6], ['error: upstream failed'])
    const long = entryRows(
      {
        kind: 'tool',
        call_id: 'c3',
        tool: 'syntic_shell',
        summary: 'y'.repeat(200),
        status: 'running',
      },
      40,
    )
    assert.equal(long.length, 1)
    assert.equal(entryRows(entries[4]!, 40)[0]![0]!.tone, 'note')
  })

  it('shows the newest rows at the bottom and scrolls up', () => {
    const rows = conversationRows(entries, 40, 3).map(rowText)
    assert.deepEqual(rows, [
      '[mod clock] turn took 3s',
      'warning: mod x stopped',
      'error: upstream failed',
    ])
    const up = conversationRows(entries, 40, 2, 3).map(rowText)
    assert.deepEqual(up, ['✓ shell: npm test', '⊘ editor: replace a.ts (declined)'])
    const top = conversationRows(entries, 40, 2, 1000).map(rowText)
    assert.deepEqual(top, ['> fix the test', ''])
  })

  it('wraps a long reply from near its end, row for row as the whole would wrap', () => {
    const paragraphs = Array.from({ length: 5000 }, (_, i) => `paragraph ${i} `.repeat(7).trim())
    const text = paragraphs.join('\n')
    const whole = wrapText(text, 40)
    const shown = conversationRows([{ kind: 'assistant', text }], 40, 10, 3).map(rowText)
    assert.deepEqual(
      shown.map((row) => row.trimEnd()),
      whole.slice(-13, -3),
    )
  })

  it('wraps only what reaches the view', () => {
    const huge: TranscriptEntry[] = Array.from({ length: 100_000 }, (_, i) => ({
      kind: 'assistant',
      text: `line ${i}`,
    }))
    const rows = conversationRows(huge, 40, 5).map(rowText)
    assert.deepEqual(rows.at(-1), 'line 99999')
    assert.equal(rows.length, 5)
  })
})

describe('prompts', () => {
  it('asks about a tool call and reads y, n and Esc', () => {
    const rows = questionRows(
      {
        kind: 'permission',
        request: {
          call_id: 'c',
          tool: 'syntic_text_editor',
          summary: 'edit a.txt',
          reason: 'edit',
        },
        answer: () => {},
      },
      60,
    ).map(rowText)
    assert.match(rows[0]!, /^Allow syntic_text_editor\? \(it changes files\)/)
    assert.match(rows[1]!, /edit a\.txt/)
    assert.equal(permissionKey('y', false), 'allow')
    assert.equal(permissionKey('n', false), 'deny')
    assert.equal(permissionKey('', true), 'deny')
    assert.equal(permissionKey('x', false), null)
    assert.equal(permissionKey('yes', false), null)
  })

  it('lets the user toggle, take all or none of a grant', () => {
    const question: GrantQuestion = {
      kind: 'grant',
      mod: { name: 'clock', description: 'times turns' },
      wanted: ['notes', 'session.read'],
      checked: [false, false],
      answer: () => {},
    }
    const rows = questionRows(question, 80).map(rowText)
    assert.match(rows[0]!, /^Mod clock asks for permissions/)
    assert.match(rows[1]!, /^ {2}times turns/)
    const project = questionRows(
      { ...question, mod: { ...question.mod, source: 'project', dir: '/src/shop/.syntic/mods/x' } },
      80,
    ).map(rowText)
    assert.match(project[2]!, /^ {2}came with this project, in \/src\/shop\/\.syntic\/mods\/x/)
    assert.ok(rows.some((row) => row.includes('[ ] 1 notes')))
    const toggled = grantKey(question, '2', false, false)
    assert.equal(toggled.granted, undefined)
    assert.deepEqual(toggled.question.checked, [false, true])
    assert.deepEqual(grantKey(toggled.question, '', true, false).granted, ['session.read'])
    assert.deepEqual(grantKey(question, 'a', false, false).granted, ['notes', 'session.read'])
    assert.deepEqual(grantKey(question, 'n', false, false).granted, [])
    assert.deepEqual(grantKey(question, '', false, true).granted, [])
    assert.equal(grantKey(question, '9', false, false).granted, undefined)
    assert.deepEqual(grantKey(question, '9', false, false).question.checked, [false, false])
  })
})

describe('the whole frame', () => {
  const slots: ScreenSlots = {
    status: [slot('clock', ['3.2s'])],
    band: [slot('clock', ['BAND'])],
    pane: [slot('clock', ['P1', 'P2'], 'Clock')],
  }

  it('is exactly the terminal: every row as wide as it, as many rows as it has', () => {
    for (const [columns, rows] of [
      [120, 30],
      [80, 24],
      [20, 5],
      [1, 1],
    ] as const) {
      const frame = composeScreen(view({ columns, rows, slots }))
      assert.equal(frame.length, rows, `${columns}x${rows}`)
      for (const row of frame) assert.equal(rowWidth(row), columns, `${columns}x${rows}`)
    }
  })

  it('puts status last, input above it, band above that, and the pane on the right at 120', () => {
    const frame = composeScreen(view({ slots })).map(rowText)
    assert.match(frame.at(-1)!, /^ mode: default {2}│ 3\.2s/)
    assert.match(frame.at(-2)!, /^› /)
    assert.equal(frame.at(-3)!.trim(), 'BAND')
    assert.match(frame.at(-4)!, /^─+$/)
    assert.equal(frame[0]!.indexOf('│ Clock '), 120 - 40 - 1)
    assert.equal(frame[1]!.slice(79), '│ P1'.padEnd(41))
  })

  it('puts the pane at the bottom, above the band, below 100 columns', () => {
    const frame = composeScreen(view({ columns: 80, rows: 24, slots })).map(rowText)
    assert.equal(frame.at(-3)!.trim(), 'BAND')
    assert.equal(frame.at(-4)!.trim(), 'P2')
    assert.equal(frame.at(-5)!.trim(), 'P1')
    assert.match(frame.at(-6)!, /^ Clock /)
    assert.match(frame.at(-7)!, /^─+$/)
  })

  it('replaces the input line with an open question and shows the spinner while busy', () => {
    const question: GrantQuestion = {
      kind: 'grant',
      mod: { name: 'clock', description: '' },
      wanted: ['notes'],
      checked: [true],
      answer: () => {},
    }
    const asked = composeScreen(view({ question })).map(rowText)
    assert.ok(!asked.some((row) => row.startsWith('› ')))
    assert.ok(asked.some((row) => row.includes('[x] 1 notes')))
    const busy = composeScreen(view({ busy: true, spinner: 1 })).map(rowText)
    assert.match(busy.at(-2)!, /^⠙ working › /)
  })

  it('keeps the cursor in view on a line longer than the screen', () => {
    const editor = insertText(emptyEditor(), `${'a'.repeat(300)}END`)
    const frame = composeScreen(view({ columns: 40, editor }))
    const input = rowText(frame.at(-2)!)
    assert.ok(input.includes('END'), input)
    assert.equal(cellWidth(input), 40)
  })

  it('cuts hostile mod text to its area', () => {
    const hostile: ScreenSlots = {
      status: [slot('evil', ['\u001b[2J'.repeat(1000)])],
      band: [
        slot(
          'evil',
          Array.from({ length: 50 }, () => '日'.repeat(500)),
        ),
      ],
      pane: [
        slot(
          'evil',
          Array.from({ length: 500 }, () => 'w'.repeat(5000)),
          'T'.repeat(500),
        ),
      ],
    }
    for (const columns of [120, 80]) {
      const frame = composeScreen(view({ columns, slots: hostile }))
      assert.equal(frame.length, 30)
      for (const row of frame) assert.equal(rowWidth(row), columns)
      assert.ok(!frame.some((row) => rowText(row).includes('\u001b')))
    }
  })
})
