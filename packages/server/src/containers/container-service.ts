import {
  DEFAULT_LIMITS,
  type SandboxDriver,
  type SandboxLimits,
  type SandboxPool,
} from '@syntic/sandbox'
import { containerLimitReached } from '../orgs/code-execution-errors.js'
import type { ContainerRecord, OrgSettings, Scope, Store } from '../store/port.js'
import { containerNotFound, overloaded } from './errors.js'
import { expiresAt, type Lifetime } from './lifetime.js'

export interface ContainerServiceOptions {
  store: Store
  driver: SandboxDriver
  /**
   * Names this server's sandbox fleet in the store (`local@<host>`, `docker@<daemon>`): servers
   * sharing a store only act on containers of their own fleet.
   */
  fleet: string
  /** Pre-started sandboxes, taken by containers created with the default limits. */
  pool?: SandboxPool | null
  /** Live sandboxes this server's fleet may hold; past it new containers get 503 `overloaded`. */
  maxSandboxes: number
  lifetime: Lifetime
  /** Limits of new containers, over the driver's defaults; the pool must use the same. */
  limits?: Partial<SandboxLimits>
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

  constructor(private readonly options: ContainerServiceOptions) {
    this.lifetime = options.lifetime
    this.clock = options.clock ?? Date.now
  }

  /** The run timeout the model is told about. */
  get runTimeoutMs(): number {
    return this.options.limits?.runTimeoutMs ?? DEFAULT_LIMITS.runTimeoutMs
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

  /** Throws 429 `container_limit_reached` or 503 `overloaded` when no container may start. */
  async checkCapacity(settings: OrgSettings): Promise<void> {
    const now = new Date(this.clock()).toISOString()
    const live = await this.options.store.countLiveContainers(settings.org, now)
    if (live >= settings.containerLimit) throw containerLimitReached(settings)
    if ((await this.fleetSize(now)) + this.creating >= this.options.maxSandboxes) {
      throw overloaded(this.options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)
    }
  }

  /**
   * Starts a container for the workspace and stores it. Without network it comes from the pool
   * when one is warm; an organisation's egress allowlist needs a sandbox of its own.
   */
  async create(scope: Scope, egressAllowlist: readonly string[] = []): Promise<ContainerRecord> {
    this.creating++
    try {
      const { pool, limits, driver } = this.options
      const handle =
        egressAllowlist.length > 0
          ? await driver.create({ ...limits, egress: { allow: [...egressAllowlist] } })
          : pool
            ? await pool.acquire()
            : await driver.create(limits)
      const now = this.clock()
      try {
        return await this.options.store.createContainer({
          ...scope,
          driver: this.options.fleet,
          sandboxId: handle.id,
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(expiresAt(this.lifetime, now, now)).toISOString(),
        })
      } catch (error) {
        await driver.destroy(handle.id).catch(() => undefined)
        throw error
      }
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
