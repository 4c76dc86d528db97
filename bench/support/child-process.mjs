// Child processes of the gateway benchmark. Each runs in its own process group, so stopping it
// also stops anything it started; every one still alive is killed when the benchmark's process
// exits or is interrupted, so a failed run leaves nothing listening.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'

const running = new Set()

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is already gone.
  }
}

function killAllNow() {
  for (const child of running) killGroup(child, 'SIGKILL')
}

function interrupted(signal) {
  killAllNow()
  process.exit(signal === 'SIGINT' ? 130 : 143)
}

function watchParent() {
  process.on('exit', killAllNow)
  process.on('SIGINT', interrupted)
  process.on('SIGTERM', interrupted)
}

function unwatchParent() {
  process.off('exit', killAllNow)
  process.off('SIGINT', interrupted)
  process.off('SIGTERM', interrupted)
}

/** Keeps the last `limit` characters written to a stream, for error messages. */
function tail(stream, limit = 4000) {
  const kept = { text: '' }
  stream.setEncoding('utf8')
  stream.on('data', (text) => {
    kept.text = (kept.text + text).slice(-limit)
  })
  return kept
}

/**
 * Starts `command args` in a new process group. Resolves with `{ child, stdout, stderr, stop }`:
 * `stdout`/`stderr` keep the output's tail, `stop()` sends SIGTERM to the group, then SIGKILL
 * after `graceMs`, and resolves once the process has exited.
 */
export function startChild(command, args, { env, cwd, graceMs = 2000 } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (running.size === 0) watchParent()
  running.add(child)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  exited.then(() => {
    running.delete(child)
    if (running.size === 0) unwatchParent()
  })
  const stdout = tail(child.stdout)
  const stderr = tail(child.stderr)
  async function stop() {
    if (child.exitCode !== null || child.signalCode !== null) return
    killGroup(child, 'SIGTERM')
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs)
    await exited
    clearTimeout(timer)
    // Grandchildren that ignored SIGTERM outlive the leader; the group id is still theirs.
    killGroup(child, 'SIGKILL')
  }
  return { child, stdout, stderr, exited, stop }
}

/** Runs a command to completion; resolves with its stdout, rejects with its stderr on failure. */
export async function runCommand(command, args, options = {}) {
  const started = startChild(command, args, options)
  const code = await started.exited
  if (code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${started.stderr.text}`)
  }
  return started.stdout.text
}

/** A port free on 127.0.0.1 right now, for servers that must be told theirs. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Resolves with the first line a child prints on stdout; rejects if it exits or times out. */
export function firstLine(started, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => done(new Error('no output in time')), timeoutMs)
    function onData(part) {
      text += part
      const end = text.indexOf('\n')
      if (end >= 0) done(null, text.slice(0, end))
    }
    function onExit(code) {
      done(new Error(`exited with ${code}: ${started.stderr.text}`))
    }
    function done(error, line) {
      clearTimeout(timer)
      started.child.stdout.off('data', onData)
      started.child.off('exit', onExit)
      if (error) reject(error)
      else resolve(line)
    }
    started.child.stdout.on('data', onData)
    started.child.once('exit', onExit)
  })
}

/** Polls `probe()` every 50 ms until it resolves true; rejects after `timeoutMs`. */
export async function waitUntil(probe, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  let lastError
  while (Date.now() < deadline) {
    try {
      if (await probe()) return
    } catch (error) {
      lastError = error
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what} did not come up in ${timeoutMs} ms${lastError ? `: ${lastError}` : ''}`)
}
