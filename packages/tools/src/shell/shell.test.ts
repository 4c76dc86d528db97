import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { ToolResult } from '../result.js'
import { type ConfirmRequest, type ShellOptions, ShellTool } from './index.js'

// Real bash and real bubblewrap throughout. No assertion is about timing: a call that would
// hang is given a timeout instead, and a timeout shows up as an is_error result.

const EXIT_LINE = /\[exit code: (-?\d+)\]$/

function exitCode(result: ToolResult): number {
  const match = EXIT_LINE.exec(result.output)
  assert.ok(match, `no exit line in ${JSON.stringify(result.output)}`)
  return Number(match[1])
}

/** The command's output without the exit line. */
function body(result: ToolResult): string {
  return result.output.replace(EXIT_LINE, '')
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A process is gone when /proc no longer lists it or it is a zombie waiting to be reaped. */
function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return true
  }
}

function tempWorkspace(): string {
  return mkdtempSync(join(tmpdir(), 'syntic-shell-'))
}

for (const sandbox of [true, false]) {
  describe(`shell (${sandbox ? 'sandboxed' : 'no sandbox'})`, () => {
    let ws: string
    let shell: ShellTool
    const tools: ShellTool[] = []

    const make = (options: Partial<ShellOptions> = {}) => {
      const tool = new ShellTool({ cwd: ws, sandbox, ...options })
      tools.push(tool)
      return tool
    }
    const run = (cmd: string, extra: Record<string, unknown> = {}, tool = shell) =>
      tool.run({ command: 'run', cmd, ...extra })

    before(() => {
      ws = tempWorkspace()
      mkdirSync(join(ws, 'sub'))
      shell = make()
    })

    after(async () => {
      for (const tool of tools) await tool.close()
      rmSync(ws, { recursive: true, force: true, maxRetries: 5 })
    })

    it('runs a command and reports its output and exit code', async () => {
      const result = await run('echo hello')
      assert.deepEqual(result, { output: 'hello\n[exit code: 0]', is_error: false })
    })

    it('reports only the exit line for a silent command', async () => {
      assert.deepEqual(await run('true'), { output: '[exit code: 0]', is_error: false })
    })

    it('ends output without a newline before the exit line', async () => {
      assert.equal((await run('printf abc')).output, 'abc\n[exit code: 0]')
    })

    it('reports nonzero exit codes as normal results', async () => {
      const result = await run('echo nope; (exit 7)')
      assert.equal(result.is_error, false)
      assert.equal(exitCode(result), 7)
      assert.equal(body(result), 'nope\n')
      assert.equal(exitCode(await run('false')), 1)
      assert.equal(exitCode(await run('no-such-command-xyz')), 127)
    })

    it('keeps the folder, variables and functions between calls', async () => {
      await run('cd sub && GREETING=hi && greet() { echo "$GREETING $1"; }')
      assert.equal(body(await run('pwd')), `${ws}/sub\n`)
      assert.equal(body(await run('greet world')), 'hi world\n')
      assert.equal(body(await run('export N=41; N=$((N+1)); echo $N')), '42\n')
      await run(`cd ${ws}`)
    })

    it('keeps stdout and stderr in the order they were written', async () => {
      const result = await run('for i in $(seq 1 50); do echo out$i; echo err$i >&2; done')
      const expected = Array.from({ length: 50 }, (_, i) => `out${i + 1}\nerr${i + 1}\n`).join('')
      assert.equal(body(result), expected)
    })

    it('gives commands an empty stdin', async () => {
      const result = await run('cat; read x; echo "read=$?"; echo done', { timeout_seconds: 20 })
      assert.equal(result.is_error, false)
      assert.equal(body(result), 'read=1\ndone\n')
    })

    it('survives syntax errors', async () => {
      const unclosed = await run("echo 'unclosed", { timeout_seconds: 20 })
      assert.equal(unclosed.is_error, false)
      assert.notEqual(exitCode(unclosed), 0)
      assert.match(unclosed.output, /unexpected EOF|matching/)
      assert.equal(exitCode(await run('if then fi', { timeout_seconds: 20 })), 2)
      assert.equal(exitCode(await run('echo "a', { timeout_seconds: 20 })), 2)
      assert.equal((await run('echo still alive')).output, 'still alive\n[exit code: 0]')
    })

    it('keeps framing intact under set -u, unset PWD and set -x', async () => {
      const tool = make()
      const nounset = await run('set -u; unset PWD; echo ok', { timeout_seconds: 20 }, tool)
      assert.equal(nounset.output, 'ok\n[exit code: 0]')
      const traced = await run('set -x; echo traced', { timeout_seconds: 20 }, tool)
      assert.equal(traced.is_error, false)
      assert.equal(exitCode(traced), 0)
      assert.match(traced.output, /^traced$/m)
      const after = await run('set +x; echo after', { timeout_seconds: 20 }, tool)
      assert.equal(after.is_error, false)
      assert.match(after.output, /^after$/m)
    })

    it('handles quotes, here-documents and multi-line commands', async () => {
      const cmd = "x='it'\"'\"'s'; echo \"$x\"\ncat <<'EOF'\n$HOME stays literal\nEOF"
      assert.equal(body(await run(cmd)), "it's\n$HOME stays literal\n")
    })

    it('returns at once when a background process keeps running', async () => {
      const tool = make()
      const quiet = await run('sleep 100 &', { timeout_seconds: 20 }, tool)
      assert.deepEqual(quiet, { output: '[exit code: 0]', is_error: false })
      const loop = '(while true; do echo x; sleep 0.1; done) &'
      const noisy = await run(loop, { timeout_seconds: 20 }, tool)
      assert.equal(noisy.is_error, false)
      assert.equal(exitCode(noisy), 0)
      // The writer's lines may show up in later output, as they would in a terminal.
      const next = await run('echo next', { timeout_seconds: 20 }, tool)
      assert.equal(next.is_error, false)
      assert.match(next.output, /^next$/m)
      assert.equal(exitCode(next), 0)
      await tool.close()
    })

    it('runs concurrent calls one after the other', async () => {
      const [a, b] = await Promise.all([run('sleep 0.2; echo a'), run('echo b')])
      assert.equal(a?.output, 'a\n[exit code: 0]')
      assert.equal(b?.output, 'b\n[exit code: 0]')
    })

    it('kills a timed-out command with its whole process tree and restarts in the same folder', async () => {
      const tool = make()
      await run('cd sub && MARK=set', {}, tool)
      // A grandchild that leaves the process group and the tree (double fork plus setsid), and
      // keeps touching a file: when it is dead the file stops changing.
      const cmd =
        "(setsid bash -c 'echo $$ > ../grandchild.pid; while true; do date +%s%N > ../tick; " +
        "sleep 0.1; done' &); sleep 1000"
      const result = await run(cmd, { timeout_seconds: 1 }, tool)
      assert.equal(result.is_error, true)
      assert.match(result.output, /^Error: the command timed out after 1 s and was killed/)
      assert.match(result.output, /variables and functions were reset/)
      assert.ok(existsSync(join(ws, 'tick')), 'the grandchild ran')
      const first = readFileSync(join(ws, 'tick'), 'utf8')
      await sleep(500)
      assert.equal(readFileSync(join(ws, 'tick'), 'utf8'), first, 'the grandchild still runs')
      if (!sandbox) {
        // Outside the sandbox the recorded pid is the real one, so check it directly.
        const pid = Number(readFileSync(join(ws, 'grandchild.pid'), 'utf8'))
        assert.ok(isDead(pid), `grandchild ${pid} is still alive`)
      }
      assert.equal(body(await run('pwd; echo "mark=[$MARK]"', {}, tool)), `${ws}/sub\nmark=[]\n`)
    })

    it('returns the output printed before a timeout', async () => {
      const tool = make()
      const result = await run('echo before; sleep 1000', { timeout_seconds: 0.5 }, tool)
      assert.equal(result.is_error, true)
      assert.match(result.output, /timed out after 0\.5 s/)
      assert.match(result.output, /Output before the timeout:\nbefore\n$/)
    })

    it('caps huge output at head and tail without holding it in memory', async () => {
      await run('true')
      const rssBefore = process.memoryUsage().rss
      const result = await run('yes | head -c 200000000', { timeout_seconds: 60 })
      const growth = process.memoryUsage().rss - rssBefore
      assert.equal(result.is_error, false)
      assert.equal(exitCode(result), 0)
      const match = /\[\.\.\. (\d+) characters dropped \.\.\.\]\n/.exec(result.output)
      assert.ok(match, 'truncation marker')
      assert.ok(result.output.startsWith('y\ny\ny\n'))
      assert.ok(result.output.endsWith('y\ny\n[exit code: 0]'))
      // The head ends at a line break here, so nothing was added before the marker line.
      const kept = body(result).length - match[0].length
      assert.equal(Number(match[1]) + kept, 200_000_000)
      assert.ok(body(result).length < 20_100)
      assert.ok(growth < 100 * 1024 * 1024, `RSS grew by ${Math.round(growth / 1048576)} MB`)
    })

    it('keeps the beginning and the end of long output', async () => {
      const tool = make({ maxOutputChars: 1000 })
      const result = await run('echo FIRST; seq 1 100000; echo LAST', {}, tool)
      const text = body(result)
      assert.ok(text.startsWith('FIRST\n1\n2\n'))
      assert.ok(text.endsWith('99999\n100000\nLAST\n'))
      assert.match(text, /\[\.\.\. \d+ characters dropped \.\.\.\]/)
      assert.ok(text.length < 1100)
    })

    it('restarts on request', async () => {
      const tool = make()
      await run('cd sub; GONE=no', {}, tool)
      const restarted = await tool.run({ command: 'restart' })
      assert.equal(restarted.is_error, false)
      assert.match(restarted.output, /restarted/)
      assert.equal(body(await run('pwd; echo "gone=[$GONE]"', {}, tool)), `${ws}\ngone=[]\n`)
    })

    it('reports `exit` and starts a fresh session on the next call', async () => {
      const tool = make()
      await run('LEFT=behind', {}, tool)
      const result = await run('echo bye; exit 3', {}, tool)
      assert.equal(result.is_error, false)
      assert.equal(exitCode(result), 3)
      assert.match(result.output, /^bye\n/)
      assert.match(result.output, /session ended; a fresh session starts/)
      assert.equal(body(await run('echo "left=[$LEFT]"', {}, tool)), 'left=[]\n')
    })

    it('rejects malformed input with errors the model can act on', async () => {
      const cases: [unknown, RegExp][] = [
        [{ command: 'run' }, /needs the argument "cmd"/],
        [{ command: 'run', cmd: 42 }, /"cmd" must be a string/],
        [{ command: 'frobnicate' }, /command must be one of run, restart/],
        [{ cmd: 'ls' }, /command must be one of/],
        [null, /must be a JSON object/],
        ['ls', /must be a JSON object/],
        [{ command: 'run', cmd: 'ls', extra: 1 }, /unknown argument "extra"/],
        [{ command: 'run', cmd: 'ls', timeout_seconds: -1 }, /timeout_seconds.*positive/],
        [{ command: 'run', cmd: 'ls', timeout_seconds: 0 }, /timeout_seconds.*positive/],
        [
          { command: 'run', cmd: 'ls', timeout_seconds: 'ten' },
          /"timeout_seconds" must be a number/,
        ],
        [{ command: 'run', cmd: 'ls', timeout_seconds: Number.NaN }, /timeout_seconds/],
        [{ command: 'run', cmd: 'echo a\0b' }, /NUL/],
        [{ command: 'run', cmd: '   ' }, /empty/],
        [{ command: 'run', cmd: `echo ${'x'.repeat(1024 * 1024)}` }, /limit is 100000/],
      ]
      for (const [input, pattern] of cases) {
        const result = await shell.run(input)
        assert.equal(result.is_error, true, JSON.stringify(input)?.slice(0, 80))
        assert.match(result.output, /^Error: /)
        assert.match(result.output, pattern)
      }
      assert.equal((await run('echo fine')).output, 'fine\n[exit code: 0]')
    })

    it('does not keep the application alive, and takes the session down when it exits', () => {
      // A child Node process that never calls close(): it must still exit on its own, and the
      // background writer it left behind must die with it.
      const script = `
        import { ShellTool } from ${JSON.stringify(new URL('./index.js', import.meta.url).href)}
        const tool = new ShellTool({ cwd: ${JSON.stringify(ws)}, sandbox: ${sandbox} })
        const r = await tool.run({ command: 'run',
          cmd: '(while true; do date +%s%N > orphantick; sleep 0.1; done) & sleep 0.3; echo started' })
        console.log(r.output)
      `
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 30_000,
      })
      assert.equal(child.signal, null, 'the application did not exit by itself')
      assert.equal(child.status, 0, child.stderr)
      assert.equal(child.stdout, 'started\n[exit code: 0]\n')
      const first = readFileSync(join(ws, 'orphantick'), 'utf8')
      spawnSync('sleep', ['0.4'])
      assert.equal(readFileSync(join(ws, 'orphantick'), 'utf8'), first)
    })

    it('kills background processes on close and refuses calls afterwards', async () => {
      const tool = new ShellTool({ cwd: ws, sandbox })
      const cmd =
        'sleep 1000 & echo $! > bg.pid; (while true; do date +%s%N > bgtick; sleep 0.1; done) & ' +
        'sleep 0.3'
      await run(cmd, {}, tool)
      await tool.close()
      const first = readFileSync(join(ws, 'bgtick'), 'utf8')
      await sleep(400)
      assert.equal(readFileSync(join(ws, 'bgtick'), 'utf8'), first)
      if (!sandbox) assert.ok(isDead(Number(readFileSync(join(ws, 'bg.pid'), 'utf8'))))
      const after = await run('echo x', {}, tool)
      assert.equal(after.is_error, true)
      assert.match(after.output, /closed/)
    })
  })
}

describe('shell: confirmation of destructive commands', () => {
  let ws: string
  const tools: ShellTool[] = []

  const make = (confirm?: ShellOptions['confirm']) => {
    const tool = new ShellTool({ cwd: ws, sandbox: false, ...(confirm ? { confirm } : {}) })
    tools.push(tool)
    return tool
  }
  const seed = () => {
    mkdirSync(join(ws, 'keep'), { recursive: true })
    writeFileSync(join(ws, 'keep', 'data.txt'), 'precious')
  }
  const removeKeep = { command: 'run', cmd: 'rm -rf keep' }
  const declined =
    'Error: the user declined to run this command (recursive delete: rm -rf keep). Nothing was run.'

  before(() => {
    ws = tempWorkspace()
  })

  after(async () => {
    for (const tool of tools) await tool.close()
    rmSync(ws, { recursive: true, force: true, maxRetries: 5 })
  })

  it('asks with the reasons, and runs nothing when the user declines', async () => {
    seed()
    const requests: ConfirmRequest[] = []
    const tool = make((request) => {
      requests.push(request)
      return false
    })
    const result = await tool.run(removeKeep)
    assert.deepEqual(requests, [{ cmd: 'rm -rf keep', reasons: ['recursive delete: rm -rf keep'] }])
    assert.deepEqual(result, { output: declined, is_error: true })
    assert.ok(existsSync(join(ws, 'keep', 'data.txt')))
  })

  it('runs the command when the user accepts, also asynchronously', async () => {
    seed()
    const result = await make(() => true).run(removeKeep)
    assert.deepEqual(result, { output: '[exit code: 0]', is_error: false })
    assert.ok(!existsSync(join(ws, 'keep')))
    seed()
    const later = await make(async () => {
      await sleep(10)
      return true
    }).run(removeKeep)
    assert.equal(later.is_error, false)
    assert.ok(!existsSync(join(ws, 'keep')))
  })

  it('declines when there is no callback', async () => {
    seed()
    assert.deepEqual(await make().run(removeKeep), { output: declined, is_error: true })
    assert.ok(existsSync(join(ws, 'keep', 'data.txt')))
  })

  it('declines when the callback throws', async () => {
    seed()
    const tool = make(() => {
      throw new Error('no terminal')
    })
    assert.deepEqual(await tool.run(removeKeep), { output: declined, is_error: true })
    const rejecting = make(() => Promise.reject(new Error('closed')))
    assert.deepEqual(await rejecting.run(removeKeep), { output: declined, is_error: true })
    assert.ok(existsSync(join(ws, 'keep', 'data.txt')))
  })

  it('does not ask for harmless commands', async () => {
    let asked = 0
    const tool = make(() => {
      asked++
      return false
    })
    assert.equal(
      (await tool.run({ command: 'run', cmd: 'rm -f nothing.txt; echo ok' })).output,
      'ok\n[exit code: 0]',
    )
    assert.equal(asked, 0)
  })

  it("does not ask about the sandbox's private /tmp, but does without the sandbox", async () => {
    const asked: string[][] = []
    const confirm = (request: ConfirmRequest) => {
      asked.push(request.reasons)
      return true
    }
    const cmd = `echo x > /tmp/syntic-scratch-${process.pid}; rm -f /tmp/syntic-scratch-${process.pid}`
    const sandboxed = new ShellTool({ cwd: ws, confirm })
    tools.push(sandboxed)
    await sandboxed.run({ command: 'run', cmd })
    assert.equal(asked.length, 0)
    await make(confirm).run({ command: 'run', cmd })
    assert.equal(asked.length, 1)
  })

  it('judges relative paths from the session folder', async () => {
    const requests: ConfirmRequest[] = []
    const tool = make((request) => {
      requests.push(request)
      return false
    })
    await tool.run({ command: 'run', cmd: 'cd /' })
    const result = await tool.run({ command: 'run', cmd: 'rm etc/hostname' })
    assert.equal(result.is_error, true)
    assert.deepEqual(requests[0]?.reasons, ['deletes outside the workspace: rm etc/hostname'])
  })
})

describe('shell: the sandbox', () => {
  let ws: string
  let server: Server
  let port: number
  const tools: ShellTool[] = []

  const make = (options: Partial<ShellOptions> = {}) => {
    // Writes outside the workspace are what these tests are about, so they are approved here.
    const tool = new ShellTool({ cwd: ws, confirm: () => true, ...options })
    tools.push(tool)
    return tool
  }
  const run = (tool: ShellTool, cmd: string) =>
    tool.run({ command: 'run', cmd, timeout_seconds: 30 })

  before(async () => {
    ws = tempWorkspace()
    server = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    assert.ok(address !== null && typeof address === 'object')
    port = address.port
  })

  after(async () => {
    for (const tool of tools) await tool.close()
    await new Promise((resolve) => server.close(resolve))
    rmSync(ws, { recursive: true, force: true, maxRetries: 5 })
  })

  const connect = () => `bash -c 'echo > /dev/tcp/127.0.0.1/${port}' && echo connected`

  it('has no network unless allowed', async () => {
    const closed = await run(make(), connect())
    assert.equal(closed.is_error, false)
    assert.notEqual(exitCode(closed), 0)
    assert.doesNotMatch(closed.output, /connected/)
    const open = await run(make({ network: true }), connect())
    assert.equal(body(open), 'connected\n')
    const unsandboxed = await run(make({ sandbox: false }), connect())
    assert.equal(body(unsandboxed), 'connected\n')
  })

  it('makes everything outside the workspace read-only', async () => {
    const tool = make()
    for (const cmd of ['touch /usr/syntic-probe', 'echo x > /etc/syntic-probe']) {
      const result = await run(tool, cmd)
      assert.notEqual(exitCode(result), 0, cmd)
      assert.match(result.output, /Read-only file system/, cmd)
    }
    // Root in the sandbox must not be able to undo the read-only mount.
    const remount = await run(tool, 'mount -o remount,rw / 2>&1; touch /usr/syntic-probe')
    assert.notEqual(exitCode(remount), 0)
    assert.ok(!existsSync('/usr/syntic-probe'))
    assert.ok(!existsSync('/etc/syntic-probe'))
  })

  it('lets the workspace be written, visibly from outside', async () => {
    const tool = make()
    const result = await run(tool, 'mkdir -p out && echo "made inside" > out/file.txt && pwd')
    assert.equal(body(result), `${ws}\n`)
    assert.equal(readFileSync(join(ws, 'out', 'file.txt'), 'utf8'), 'made inside\n')
  })

  it('gives the session a private /tmp', async () => {
    const name = `syntic-private-${process.pid}`
    const result = await run(make(), `echo secret > /tmp/${name} && cat /tmp/${name}`)
    assert.equal(body(result), 'secret\n')
    assert.ok(!existsSync(join('/tmp', name)))
  })

  it('hides the home folder, where credentials live', async () => {
    const name = `.syntic-probe-${process.pid}`
    const secret = join(homedir(), name)
    writeFileSync(secret, 'token-in-home')
    try {
      const hidden = await run(make(), `cat ~/${name}`)
      assert.notEqual(exitCode(hidden), 0)
      assert.doesNotMatch(hidden.output, /token-in-home/)
      const visible = await run(make({ sandbox: false }), `cat ~/${name}`)
      assert.equal(body(visible), 'token-in-home\n')
    } finally {
      rmSync(secret, { force: true })
    }
  })

  it("hides the host's sockets under /run", async () => {
    const socketPath = `/run/syntic-probe-${process.pid}.sock`
    const listener = createServer((socket) => socket.end('host'))
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve))
    try {
      const hidden = await run(make(), `test -S ${socketPath} && echo reachable || echo hidden`)
      assert.equal(body(hidden), 'hidden\n')
      const visible = await run(make({ sandbox: false }), `test -S ${socketPath} && echo reachable`)
      assert.equal(body(visible), 'reachable\n')
    } finally {
      await new Promise((resolve) => listener.close(resolve))
    }
  })

  it("passes only an allowlist of the application's environment, plus what it adds", async () => {
    process.env.SYNTIC_TEST_SECRET = 'sk_live_secret'
    try {
      const tool = make({ env: { GIVEN: 'yes' } })
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash expansions, not a template
      const result = await run(tool, 'echo "${SYNTIC_TEST_SECRET:-unset} $GIVEN ${PATH:+path}"')
      assert.equal(body(result), 'unset yes path\n')
    } finally {
      delete process.env.SYNTIC_TEST_SECRET
    }
  })

  it('says how to fix a missing bubblewrap', async () => {
    const tool = make({ env: { PATH: '/nonexistent' } })
    const result = await run(tool, 'true')
    assert.equal(result.is_error, true)
    assert.match(result.output, /^Error: bubblewrap \(bwrap\) is not installed/)
    assert.match(result.output, /npm run setup/)
    assert.match(result.output, /sandbox: false/)
  })

  it('reports a workspace that does not exist', async () => {
    const tool = new ShellTool({ cwd: join(ws, 'missing') })
    tools.push(tool)
    const result = await run(tool, 'true')
    assert.equal(result.is_error, true)
    assert.match(result.output, /workspace folder .*missing does not exist/)
  })
})
