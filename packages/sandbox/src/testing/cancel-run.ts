import assert from 'node:assert/strict'
import type { SandboxDriver } from '../driver.js'

/**
 * Any driver: aborting a run kills it with what it started and resolves it as cancelled; a run
 * queued behind it with the same signal never starts; the sandbox runs code again afterwards.
 */
export async function assertRunCancels(driver: SandboxDriver, id: string): Promise<void> {
  const controller = new AbortController()
  const signal = controller.signal
  const running = driver.run(
    id,
    { language: 'bash', code: 'sleep 600 & echo started; wait' },
    { signal },
  )
  const queued = driver.run(id, { language: 'python', code: 'print("never")' }, { signal })
  setTimeout(() => controller.abort(), 300)
  const result = await running
  assert.equal(result.cancelled, true)
  assert.equal(result.timedOut, false)
  assert.equal(result.exitCode, 137)
  assert.match(result.stderr.text, /^Cancelled: /)
  await assert.rejects(queued, { name: 'AbortError' })
  const after = await driver.run(id, { language: 'bash', code: 'pgrep -x sleep || echo none' })
  assert.equal(after.stdout.text, 'none\n')
  assert.equal(after.cancelled, false)
  await assert.rejects(
    driver.run(id, { language: 'bash', code: 'true' }, { signal: AbortSignal.abort() }),
    { name: 'AbortError' },
  )
}
