import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxLimits } from '../limits.js'
import { DockerDriver, type DockerDriverOptions } from './docker-driver.js'

/**
 * A Docker driver on the test daemon (`SYNTIC_TEST_DOCKER_HOST`, set by `npm test` after starting
 * Podman) with its own label group and disk folder, so test files side by side never see each
 * other's sandboxes. Fails, never skips, when the variable is missing.
 */
export async function openTestDockerDriver(
  limits: Partial<SandboxLimits> = {},
  options: Pick<DockerDriverOptions, 'packageMirror' | 'egressProxy'> = {},
): Promise<{
  driver: DockerDriver
  host: string
  group: string
  stateDir: string
  close: () => Promise<void>
}> {
  const host = process.env.SYNTIC_TEST_DOCKER_HOST
  if (!host) {
    throw new Error(
      'SYNTIC_TEST_DOCKER_HOST is not set: run the tests with `npm test`, or start Podman with `node scripts/podman.mjs` and export what it prints',
    )
  }
  const group = `test-${randomBytes(4).toString('hex')}`
  const stateDir = mkdtempSync(join(tmpdir(), 'syntic-docker-test-'))
  const driver = await DockerDriver.open({ host, group, stateDir, limits, ...options })
  return {
    driver,
    host,
    group,
    stateDir,
    close: async () => {
      await driver.close()
      for (const orphan of await driver.list()) await driver.destroy(orphan.id)
      rmSync(stateDir, { recursive: true, force: true })
    },
  }
}
