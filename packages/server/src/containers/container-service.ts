import {
  type CreateOptions,
  DEFAULT_LIMITS,
  type PackageMirror,
  type SandboxDriver,
  type SandboxLimits,
  type SandboxPool,
} from '@syntic/sandbox'
import { containerLimitReached } from '../orgs/code-execution-errors.js'
import type { EffectiveOrgSettings } from '../orgs/container-limit.js'
import type { ContainerRecord, Scope, Store } from '../store/port.js'
import { containerNotFound, overloaded, sandboxUnavailable } from './errors.js'
import { expiresAt, type Lifetime } from './lifetime.js'

export interface ContainerServiceOptions {
  store: Store
  driver: SandboxDriver
  /**
   * Names this server's sandbox fleet in the store (`local@<host>`, `docker@<daemon>`): servers
   * sharing a store only act on containers of their own fleet.
   */
  fleet: string
  /** Live sandboxes this server's fleet may hold; past it new containers get 503 `overloaded`. */
  maxSandboxes: number
  lifetime: Lifetime
  /** Limits of new containers, over the driver's defaults; the pool must use the same. */
  limits?: Partial<SandboxLimits>
  /** The package mirror every sandbox may reach (`SYNTIC_PACKAGE_MIRROR_URL`); the pool's too. */
  packageMirror?: PackageMirror | null
  retryAfterSeconds?: number
  clock?: () => number
}

const DEFAULT_RETRY_AFTER_SECONDS = 30

/**
 * Containers: `cntr_` ids in the store mapped to sandboxes of a driver, within one workspace,
 * with their idle and absolute expiry. The sandbox id and driver never leave the server.
 */
export class ContainerService {
  readonly lifetime: Lifetime
  private readonly clock: () => number
  /** Containers a request of this server is using, by id, with how many use each. */
  private readonly inUse = new Map<string, number>()
  /** Containers being created, counted against the fleet's capacity before they are stored. */
  private creating = 0
  /** Pre-started sandboxes, created with `createOptions([])`. */
  private pool: SandboxPool | null = null

  constructor(private readonly options: ContainerServiceOptions) {
    this.lifetime = options.lifetime
    this.clock = options.clock ?? Date.now
  }

  /** The run timeout the model is told about. */
  get runTimeoutMs(): number {
    return this.options.limits?.runTimeoutMs ?? DEFAULT_LIMITS.runTimeoutMs
  }

  /** Takes new containers without an egress allowlist from this pool when it has one ready. */
  usePool(pool: SandboxPool | null): void {
    this.pool = pool
  }

  get packageMirror(): PackageMirror | null {
    return this.options.packageMirror ?? null
  }

  get driver(): SandboxDriver {
    return this.options.driver
  }

  /** A live container of the workspace on this fleet, else 404 `container_not_found`. */
  async find(scope: Scope, id: string, param: string): Promise<ContainerRecord> {
    const now = new Date(this.clock()).toISOString()
    const record = await this.options.store.getContainer(scope, id, now)
    if (record === null || record.driver !== this.options.fleet) throw containerNotFound(param)
    return record
  }

  /**
   * Throws 429 `container_limit_reached` or 503 `overloaded` when no container may start: the
   * early answer, before a sandbox is started; `create` checks the organisation's limit again,
   * atomically.
   */
  async checkCapacity(settings: EffectiveOrgSettings): Promise<void> {
    const now = new Date(this.clock()).toISOString()
    const live = await this.options.store.countLiveContainers(settings.org, now)
    if (live >= settings.containerLimit) throw containerLimitReached(settings)
    if ((await this.fleetSize(now)) + this.creating >= this.options.maxSandboxes) {
      throw overloaded(this.options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)
    }
  }

  /** The options a new container is created with: the limits, and its network if it has any. */
  createOptions(egressAllowlist: readonly string[]): CreateOptions {
    const { limits, packageMirror } = this.options
    if (egressAllowlist.length === 0 && !packageMirror) return { ...limits }
    return {
      ...limits,
      egress: { allow: [...egressAllowlist], mirror: packageMirror ?? null },
    }
  }

  /**
   * Starts a container for the workspace and stores it, if the organisation's limit still allows:
   * the store checks and inserts atomically, so concurrent requests cannot both take the last
   * place (the loser's sandbox is destroyed and it gets 429). Without an egress allowlist the
   * sandbox comes from the pool when one is warm (the pool's sandboxes have the package mirror).
   */
  async create(scope: Scope, settings: EffectiveOrgSettings): Promise<ContainerRecord> {
    const { driver } = this.options
    const pool = this.pool
    const allowlist = settings.egressAllowlist
    if (allowlist.length > 0 && !driver.egress) {
      throw sandboxUnavailable(
        "the organisation has an egress allowlist, and this server's sandboxes cannot have network (a Docker daemon on another machine); use the local driver or a local Docker daemon",
      )
    }
    this.creating++
    try {
      const handle =
        allowlist.length === 0 && pool
          ? await pool.acquire()
          : await driver.create(this.createOptions(allowlist))
      const now = this.clock()
      let record: ContainerRecord | null
      try {
        record = await this.options.store.createContainer({
          ...scope,
          driver: this.options.fleet,
          sandboxId: handle.id,
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(expiresAt(this.lifetime, now, now)).toISOString(),
          maxLive: settings.containerLimit,
        })
      } catch (error) {
        await driver.destroy(handle.id).catch(() => undefined)
        throw error
      }
      if (record === null) {
        await driver.destroy(handle.id).catch(() => undefined)
        throw containerLimitReached(settings)
      }
      return record
    } finally {
      this.creating--
    }
  }

  /** Marks the container used now; its expiry moves, within the absolute lifetime. */
  async touch(record: ContainerRecord): Promise<ContainerRecord> {
    const now = this.clock()
    const expiry = expiresAt(this.lifetime, Date.parse(record.createdAt), now)
    const touched = await this.options.store.touchContainer(record.id, {
      lastUsedAt: new Date(now).toISOString(),
      expiresAt: new Date(expiry).toISOString(),
    })
    return touched ?? record
  }

  /** Keeps the reaper off a container while a request uses it; call the returned release. */
  hold(id: string): () => void {
    this.inUse.set(id, (this.inUse.get(id) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.inUse.get(id) ?? 1) - 1
      if (left === 0) this.inUse.delete(id)
      else this.inUse.set(id, left)
    }
  }

  /** Destroys the sandbox (its files go with it), then marks the container removed. */
  async remove(record: ContainerRecord): Promise<void> {
    await this.options.driver.destroy(record.sandboxId)
    await this.options.store.markContainerRemoved(record.id, new Date(this.clock()).toISOString())
  }

  /** Removes this fleet's expired containers that no request holds; returns how many. */
  async reap(): Promise<number> {
    const now = new Date(this.clock()).toISOString()
    let removed = 0
    for (const record of await this.options.store.listLiveContainers()) {
      if (record.driver !== this.options.fleet || record.expiresAt > now) continue
      if (this.inUse.has(record.id)) continue
      await this.remove(record)
      removed++
    }
    return removed
  }

  /**
   * At start: destroys sandboxes the store does not know as live and orphans of an earlier process
   * (which no driver can run code in again), and marks removed the live containers of this fleet
   * whose sandbox is gone.
   */
  async reconcile(): Promise<{ destroyed: number; lost: number }> {
    const { store, driver } = this.options
    const live = (await store.listLiveContainers()).filter((c) => c.driver === this.options.fleet)
    const bySandbox = new Map(live.map((c) => [c.sandboxId, c]))
    const kept = new Set<string>()
    let destroyed = 0
    for (const sandbox of await driver.list()) {
      if (sandbox.attached && bySandbox.has(sandbox.id)) {
        kept.add(sandbox.id)
        continue
      }
      await driver.destroy(sandbox.id)
      destroyed++
    }
    const removedAt = new Date(this.clock()).toISOString()
    let lost = 0
    for (const record of live) {
      if (kept.has(record.sandboxId)) continue
      if (await store.markContainerRemoved(record.id, removedAt)) lost++
    }
    return { destroyed, lost }
  }

  private async fleetSize(now: string): Promise<number> {
    const live = await this.options.store.listLiveContainers()
    return live.filter((c) => c.driver === this.options.fleet && c.expiresAt > now).length
  }
}
