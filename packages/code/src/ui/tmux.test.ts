// The real `syntic code` in a real terminal (tmux), with a scripted model and a test-local HOME.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ScriptedUpstream } from '@syntic/server/testing'
import { EDIT_DECLINED } from '../agent/permissions.js'
import { editor, textEvents, toolCallEvents } from '../testing/chat-stream.js'
import { EXITED_MARK, TmuxScreen } from './tmux-screen.js'

const SYNTIC = join(dirname(fileURLToPath(import.meta.url)), '../../../cli/bin/syntic.js')

const CLOCK_MANIFEST = {
  name: 'clock',
  description: 'shows a clock',
  run: ['/bin/sh', 'mod.sh'],
  events: ['turn.end'],
  ui: ['status', 'band', 'pane'],
  permissions: ['notes'],
}

const CLOCK_SCRIPT = `read hello
echo '{"type":"draw","slot":"status","text":"CLOCK-STATUS"}'
echo '{"type":"draw","slot":"band","lines":["BAND-ROW-ONE","BAND-ROW-TWO"]}'
echo '{"type":"draw","slot":"pane","title":"CLOCKPANE","lines":["PANE-ROW-1","PANE-ROW-2"]}'
while read line; do
  case "$line" in
    *turn.end*) echo '{"type":"call","id":1,"method":"note.post","params":{"text":"turn finished"}}';;
  esac
done
`

const textReply = (text: string) => ({ sse: textEvents(text) })

const editReply = (id: string, oldText: string, newText: string) => ({
  sse: toolCallEvents([
    editor({ command: 'replace', path: 'a.txt', old_text: oldText, new_text: newText }, id),
  ]),
})

/** The tool message the model got for `id` in the last request. */
function toolResultSent(upstream: ScriptedUpstream, id: string): string | undefined {
  const body = upstream.requests.at(-1)?.body as {
    messages?: { role: string; tool_call_id?: string; content?: unknown }[]
  }
  const message = body.messages?.find((m) => m.role === 'tool' && m.tool_call_id === id)
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content)
}

describe('syntic code in a terminal', () => {
  let upstream: ScriptedUpstream
  let scratch: string

  before(async () => {
    upstream = await ScriptedUpstream.start()
    scratch = await mkdtemp(join(tmpdir(), 'syntic-tmux-'))
  })

  after(async () => {
    await upstream.close()
    await rm(scratch, { recursive: true, force: true })
  })

  /** A fresh HOME (with the clock mod unless `mods` is false) and project folder. */
  async function folders(name: string, mods = true): Promise<{ home: string; project: string }> {
    const home = join(scratch, name, 'home')
    const project = join(scratch, name, 'project')
    await mkdir(project, { recursive: true })
    await writeFile(join(project, 'a.txt'), 'hello world\n')
    const modDir = join(home, '.syntic', 'mods', 'clock')
    await mkdir(modDir, { recursive: true })
    if (mods) {
      await writeFile(join(modDir, 'mod.json'), JSON.stringify(CLOCK_MANIFEST))
      await writeFile(join(modDir, 'mod.sh'), CLOCK_SCRIPT)
    }
    return { home, project }
  }

  async function open(
    t: TestContext,
    where: { home: string; project: string },
    columns: number,
    rows: number,
    extra: string[] = [],
  ): Promise<TmuxScreen> {
    const screen = await TmuxScreen.start({
      scratch,
      cwd: where.project,
      env: {
        HOME: where.home,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
      },
      argv: [
        process.execPath,
        SYNTIC,
        'code',
        '--upstream',
        upstream.openaiUrl,
        '--model',
        'scripted',
        '--no-sandbox',
        ...extra,
      ],
      columns,
      rows,
    })
    t.after(() => screen.kill())
    return screen
  }

  it('at 120 columns: grant at first start, status, band and pane where documented, notes, Shift+Tab; no grant asked next start', async (t) => {
    const where = await folders('wide')
    const screen = await open(t, where, 120, 40)
    await screen.waitForText('Mod clock asks for permissions')
    await screen.type('a')
    const rows = await screen.waitFor((r) => r[38]?.includes('CLOCK-STATUS') === true, 'the status')
    // 39 rows of frame (the 40th keeps the cursor): status, input, band, rule from the bottom.
    assert.equal(rows[38], ' mode: default  │ CLOCK-STATUS')
    assert.equal(rows[39], '')
    assert.match(rows[37]!, /^›/)
    assert.equal(rows[36], 'BAND-ROW-TWO')
    assert.equal(rows[35], 'BAND-ROW-ONE')
    assert.equal(rows[34], '─'.repeat(120))
    // The pane: right of column 79, from the top row.
    assert.equal(rows[0]!.indexOf('│ CLOCKPANE'), 79)
    assert.equal(rows[1]!.slice(79), '│ PANE-ROW-1')
    assert.equal(rows[2]!.slice(79), '│ PANE-ROW-2')
    assert.equal(rows[3]!.slice(79), '│')
    const grants = await readFile(join(where.home, '.syntic', 'mod-grants.json'), 'utf8')
    assert.match(grants, /"notes"/)

    upstream.enqueue(textReply('Hello from the model.'))
    await screen.type('hi')
    await screen.press('Enter')
    const after = await screen.waitForText('[mod clock] turn finished')
    const noteRow = after.findIndex((row) => row.startsWith('[mod clock] turn finished'))
    assert.ok(noteRow >= 0 && noteRow < 34, 'the note is in the conversation view')
    assert.ok(after.some((row) => row.startsWith('Hello from the model.')))
    assert.ok(after.some((row) => row.startsWith('> hi')))
    const sent = JSON.stringify(upstream.requests.at(-1)?.body)
    assert.ok(!sent.includes('turn finished'), 'notes never reach the model')

    await screen.press('BTab')
    await screen.waitFor((r) => r[38]?.startsWith(' mode: acceptEdits') === true, 'acceptEdits')
    await screen.press('BTab')
    await screen.waitFor((r) => r[38]?.startsWith(' mode: plan') === true, 'plan')
    await screen.type('/exit')
    await screen.press('Enter')
    await screen.waitForText(`${EXITED_MARK} 0`)

    const again = await open(t, where, 120, 40)
    const second = await again.waitFor(
      (r) => r[38]?.includes('CLOCK-STATUS') === true,
      'the status without a grant prompt',
    )
    assert.ok(!second.some((row) => row.includes('asks for permissions')))
    assert.match(second[37]!, /^›/)
  })

  it('at 80 columns: the pane sits at the bottom, above the band; it moves right when widened', async (t) => {
    const where = await folders('narrow')
    const screen = await open(t, where, 80, 30)
    await screen.waitForText('Mod clock asks for permissions')
    await screen.type('n')
    const rows = await screen.waitFor((r) => r[28]?.includes('CLOCK-STATUS') === true, 'status')
    assert.equal(rows[28], ' mode: default  │ CLOCK-STATUS')
    assert.match(rows[27]!, /^›/)
    assert.equal(rows[26], 'BAND-ROW-TWO')
    assert.equal(rows[25], 'BAND-ROW-ONE')
    assert.equal(rows[24], ' PANE-ROW-2')
    assert.equal(rows[23], ' PANE-ROW-1')
    assert.equal(rows[22], ' CLOCKPANE')
    assert.equal(rows[21], '─'.repeat(80))
    assert.ok(!rows.slice(0, 21).some((row) => row.includes('│')), 'no side pane')
    for (const row of rows) assert.ok(row.length <= 80)

    await screen.resize(120, 30)
    const wide = await screen.waitFor((r) => r[0]?.indexOf('│ CLOCKPANE') === 79, 'the side pane')
    assert.equal(wide[26], 'BAND-ROW-TWO')
    assert.equal(wide[24], '─'.repeat(120))
  })

  it('asks before an edit: y edits the file, n leaves it and the model gets the decline', async (t) => {
    const where = await folders('permission', false)
    const file = join(where.project, 'a.txt')
    const screen = await open(t, where, 120, 30, ['--no-mods'])
    await screen.waitFor((r) => r[28]?.startsWith(' mode: default') === true, 'the screen')

    upstream.enqueue(editReply('call_yes', 'hello', 'goodbye'), textReply('Edited it.'))
    await screen.type('change hello to goodbye')
    await screen.press('Enter')
    const asked = await screen.waitForText('Allow syntic_text_editor? (it changes files)')
    assert.ok(asked.some((row) => row.includes('y: allow   n: deny   Esc: deny')))
    assert.equal(await readFile(file, 'utf8'), 'hello world\n', 'nothing runs before the answer')
    await screen.type('y')
    await screen.waitForText('Edited it.')
    assert.equal(await readFile(file, 'utf8'), 'goodbye world\n')

    upstream.enqueue(editReply('call_no', 'goodbye', 'again'), textReply('Left it alone.'))
    await screen.type('change it again')
    await screen.press('Enter')
    await screen.waitForText('Allow syntic_text_editor?')
    await screen.type('n')
    const declined = await screen.waitForText('Left it alone.')
    assert.ok(declined.some((row) => row.includes('(declined)')))
    assert.equal(await readFile(file, 'utf8'), 'goodbye world\n')
    assert.equal(toolResultSent(upstream, 'call_no'), EDIT_DECLINED)

    await screen.press('C-d')
    await screen.waitForText(`${EXITED_MARK} 0`)
  })

  it('survives hostile typing: control bytes, a huge paste, unknown commands', async (t) => {
    const where = await folders('hostile', false)
    const screen = await open(t, where, 80, 20, ['--no-mods'])
    await screen.waitFor((r) => r[18]?.startsWith(' mode: default') === true, 'the screen')
    await screen.type(`${'x'.repeat(5000)}END`)
    await screen.waitFor((r) => r[17]?.includes('END') === true, 'the end of the paste in view')
    await screen.press('C-c')
    await screen.waitForText('press Ctrl+C again to exit')
    await screen.type('/mode sideways')
    await screen.press('Enter')
    const rows = await screen.waitForText('usage: /mode default|acceptEdits|plan|bypass')
    assert.equal(rows[18], ' mode: default')
    await screen.press('Escape', 'C-a', 'C-e', 'PPage', 'NPage', 'Up', 'Down', 'Tab')
    await screen.type('/exit')
    await screen.press('Enter')
    await screen.waitForText(`${EXITED_MARK} 0`)
    assert.equal(upstream.requests.filter((r) => JSON.stringify(r.body).includes('END')).length, 0)
  })
})
