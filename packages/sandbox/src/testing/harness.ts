import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requireImage } from '../image/build.js'
import type { SandboxLimits } from '../limits.js'
import { removeCgroupParent } from '../local/cgroups.js'
import { LocalDriver } from '../local/local-driver.js'

/**
 * A local driver on the built image with its own state folder and cgroup parent, so test files
 * running side by side never see each other's sandboxes. Fails (does not skip) without the image.
 */
export async function openTestDriver(limits: Partial<SandboxLimits> = {}): Promise<{
  driver: LocalDriver
  stateDir: string
  cgroupParent: string
  close: () => Promise<void>
}> {
  const rootfs = requireImage()
  const stateDir = mkdtempSync(join(tmpdir(), 'syntic-sandbox-test-'))
  const cgroupParent = `syntic-test-${randomBytes(4).toString('hex')}`
  const driver = await LocalDriver.open({ rootfs, stateDir, cgroupParent, limits })
  return {
    driver,
    stateDir,
    cgroupParent,
    close: async () => {
      await driver.close()
      removeCgroupParent(driver.cgroups, cgroupParent)
      rmSync(stateDir, { recursive: true, force: true })
    },
  }
}
