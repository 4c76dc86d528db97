import { hostname } from 'node:os'
import {
  DockerDriver,
  LocalDriver,
  type PackageMirror,
  type SandboxDriver,
  type SandboxLimits,
  SandboxPool,
} from '@syntic/sandbox'
import type { SandboxConfig } from '../config.js'
import type { LogSink } from '../request-log.js'
import type { Store } from '../store/port.js'
import { ContainerService } from './container-service.js'
import { CONTAINER_IDLE_MS, CONTAINER_MAX_LIFETIME_MS, REAP_INTERVAL_MS } from './lifetime.js'
import { ContainerReaper } from './reaper.js'

/** Docker's own default socket; Podman's is given with SYNTIC_DOCKER_HOST. */
export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock'

/** Code execution's containers for one server, or why there are none. */
export interface ContainerRuntime {
  containers: ContainerService | null
  unavailable?: string
  close(): Promise<void>
}

export interface ContainerRuntimeOptions {
  store: Store
  config: SandboxConfig | undefined
  /** A driver the caller owns (tests, embedding); else one is opened from `config`. */
  driver?: SandboxDriver
  errorLog: LogSink
}

/**
 * Opens the sandbox driver, cleans up what an earlier process left (orphans, containers whose
 * sandbox is gone), fills the pool and starts the reaper. A driver that cannot open (no root, no
 * image, no daemon) leaves code execution unavailable and the rest of the server working.
 */
export async function openContainerRuntime(
  options: ContainerRuntimeOptions,
): Promise<ContainerRuntime> {
  const { config, errorLog } = options
  if (options.driver === undefined && config === undefined) {
    return {
      containers: null,
      unavailable: 'no sandbox driver is configured',
      close: async () => {},
    }
  }
  const limits: Partial<SandboxLimits> =
    config?.runTimeoutMs !== undefined ? { runTimeoutMs: config.runTimeoutMs } : {}
  let driver: SandboxDriver
  try {
    driver = options.driver ?? (await openDriver(config!, limits, fleetOf(config!)))
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    errorLog.write(
      `${JSON.stringify({ level: 'warn', msg: 'code execution unavailable', reason })}\n`,
    )
    return { containers: null, unavailable: reason, close: async () => {} }
  }
  const owned = options.driver === undefined
  const packageMirror: PackageMirror | null =
    config?.packageMirrorUrl !== undefined ? { url: config.packageMirrorUrl } : null
  const containers = new ContainerService({
    store: options.store,
    driver,
    packageMirror,
    fleet: config?.fleet ?? `${driver.name}@${hostname()}`,
    maxSandboxes: config?.maxSandboxes ?? 64,
    lifetime: {
      idleMs: config?.idleMs ?? CONTAINER_IDLE_MS,
      maxMs: config?.maxLifetimeMs ?? CONTAINER_MAX_LIFETIME_MS,
    },
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  })
  const poolSize = config?.poolSize ?? 0
  const pool: SandboxPool | null =
    poolSize > 0
      ? new SandboxPool(driver, { size: poolSize, create: containers.createOptions([]) })
      : null
  containers.usePool(pool)
  try {
    await containers.reconcile()
  } catch (error) {
    // The server does not start; a driver opened here must not outlive it.
    if (owned) await driver.close()
    throw error
  }
  // Filled in the background: the first requests create their own sandboxes until it is warm.
  void pool?.start()
  const reaper = new ContainerReaper(
    containers,
    config?.reapIntervalMs ?? REAP_INTERVAL_MS,
    errorLog,
  )
  reaper.start()
  return {
    containers,
    async close() {
      await reaper.stop()
      await pool?.close()
      if (owned) await driver.close()
    },
  }
}

function fleetOf(config: SandboxConfig): string {
  return config.fleet ?? `${config.driver}@${hostname()}`
}

/**
 * The configured driver. Its package mirror is the server's, never read from elsewhere. On a
 * Docker daemon the fleet is the driver's label group, so that servers sharing one daemon never
 * list (and so never clean up) each other's sandboxes.
 */
export async function openDriver(
  config: SandboxConfig,
  limits: Partial<SandboxLimits>,
  fleet: string,
): Promise<SandboxDriver> {
  const packageMirror =
    config.packageMirrorUrl !== undefined ? { url: config.packageMirrorUrl } : null
  if (config.driver === 'docker') {
    // Egress needs a local daemon: on a remote host, open refuses a mirror and the driver reports
    // no egress, so organisations with an allowlist get sandbox_unavailable.
    return DockerDriver.open({
      host: config.dockerHost ?? DEFAULT_DOCKER_HOST,
      group: fleet.replace(/[^\w.-]/g, '_').slice(0, 64),
      limits,
      packageMirror,
    })
  }
  return LocalDriver.open({ limits, packageMirror })
}
