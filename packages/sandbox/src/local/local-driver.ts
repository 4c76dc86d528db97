import { execFileSync } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, chown, cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type CreateOptions,
  type RunRequest,
  type RunResult,
  type SandboxDriver,
  SandboxError,
  type SandboxHandle,
  type SandboxInfo,
} from '../driver.js'
import { type PackageMirror, resolveEgress } from '../egress/policy.js'
import { EgressProxy, type EgressProxyOptions } from '../egress/proxy.js'
import {
  attachSandboxEgress,
  driverPackageMirror,
  type SandboxEgress,
} from '../egress/sandbox-egress.js'
import { requireImage } from '../image/build.js'
import { KernelDriver } from '../kernel-driver.js'
import { awaitRun, killedResult, toRunResult } from '../kernel-replies.js'
import { resolveLimits, type SandboxLimits } from '../limits.js'
import { sandboxSeccompFilter } from '../seccomp/filter.js'
import { type CgroupLayout, detectCgroups, listCgroups, SandboxCgroup } from './cgroups.js'
import { createDisk, DISK_MOUNT, removeDisk } from './disk.js'
import { type KernelProcess as Kernel, KernelExitedError, KernelProcess } from './kernel-process.js'
import type { LaunchPlan } from './launch.js'

export interface LocalDriverOptions {
  /** The image's root filesystem; by default the built image for the current recipe. */
  rootfs?: string
  /** Where each sandbox's disk image and mount live. */
  stateDir?: string
  /** The cgroup (under each controller) that holds this host's sandboxes. */
  cgroupParent?: string
  /** Sandboxes run as distinct unprivileged host uids from this base. */
  uidBase?: number
  /** Defaults for `create()`, over the spec's limits. */
  limits?: Partial<SandboxLimits>
  /**
   * The package mirror every sandbox may reach (pip's index); by default
   * `SYNTIC_PACKAGE_MIRROR_URL`, if set. Null: none, whatever the environment says.
   */
  packageMirror?: PackageMirror | null
  /** Limits and resolver of the host-side egress proxy (started with the first sandbox using it). */
  egressProxy?: EgressProxyOptions
}

const STARTUP_TIMEOUT_MS = 30_000
const UID_RANGE = 65_536
const ID_PATTERN = /^sbx-[0-9a-f]{16}$/
const KERNEL_DIR = fileURLToPath(new URL('../../agent', import.meta.url))
/** The image's home skeleton (e.g. matplotlib's font cache), copied into each new home. */
const HOME_SKELETON = 'opt/syntic/home'

interface Meta {
  id: string
  uid: number
  createdAt: number
  limits: SandboxLimits
}

interface LocalSandbox extends Meta {
  dir: string
  egress?: SandboxEgress
  cgroup: SandboxCgroup
  kernel: Kernel
  /** Requests to one sandbox run one after another. */
  queue: Promise<unknown>
}

/**
 * The embedded driver: each sandbox is a bubblewrap sandbox (user, pid, ipc, uts and network
 * namespaces; read-only image root; seccomp) in its own cgroups, with a loop-mounted ext4 disk of
 * the disk limit's size for `/mnt` and `/tmp`. Needs root, bubblewrap and util-linux; no daemon.
 */
export class LocalDriver extends KernelDriver<LocalSandbox> implements SandboxDriver {
  readonly name = 'local'
  readonly egress = true
  private proxy: EgressProxy | null = null

  private constructor(
    private readonly rootfs: string,
    private readonly stateDir: string,
    private readonly cgroupParent: string,
    private readonly uidBase: number,
    private readonly defaults: Partial<SandboxLimits>,
    readonly cgroups: CgroupLayout,
    private readonly seccompPath: string,
    private readonly packageMirror: PackageMirror | null,
    private readonly proxyOptions: EgressProxyOptions,
  ) {
    super()
  }

  static async open(options: LocalDriverOptions = {}): Promise<LocalDriver> {
    if (process.platform !== 'linux') throw new Error('the local sandbox driver needs Linux')
    if (process.getuid?.() !== 0) {
      throw new Error('the local sandbox driver needs root (cgroups and loop-mounted disks)')
    }
    for (const tool of ['bwrap', 'setpriv', 'mkfs.ext4', 'mount']) {
      try {
        execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
      } catch {
        throw new Error(
          `the local sandbox driver needs ${tool} (apt-get install bubblewrap util-linux e2fsprogs)`,
        )
      }
    }
    const rootfs = options.rootfs ?? requireImage()
    const parent = options.cgroupParent ?? 'syntic-sandbox'
    if (!/^[\w-]+(\/[\w-]+)*$/.test(parent)) throw new Error(`invalid cgroup parent ${parent}`)
    const uidBase = options.uidBase ?? 1_000_000
    if (!Number.isInteger(uidBase) || uidBase < 1000 || uidBase + UID_RANGE > 2 ** 32 - 2) {
      throw new Error('uidBase must leave room for 65536 unprivileged uids')
    }
    resolveLimits(options.limits)
    const packageMirror = driverPackageMirror(options.packageMirror)
    const stateDir = options.stateDir ?? join(tmpdir(), 'syntic-sandbox')
    await mkdir(stateDir, { recursive: true, mode: 0o711 })
    await chmod(stateDir, 0o711)
    const seccompPath = join(stateDir, 'seccomp.bpf')
    await writeFile(seccompPath, sandboxSeccompFilter(), { mode: 0o644 })
    return new LocalDriver(
      rootfs,
      stateDir,
      parent,
      uidBase,
      options.limits ?? {},
      detectCgroups(),
      seccompPath,
      packageMirror,
      options.egressProxy ?? {},
    )
  }

  async create(options: CreateOptions = {}): Promise<SandboxHandle> {
    const { egress: egressOptions, ...overrides } = options
    const limits = resolveLimits({ ...this.defaults, ...overrides })
    const policy = resolveEgress(egressOptions, this.packageMirror)
    const id = `sbx-${randomBytes(8).toString('hex')}`
    const dir = join(this.stateDir, id)
    const meta: Meta = { id, uid: this.allocateUid(), createdAt: Date.now(), limits }
    try {
      await mkdir(dir, { mode: 0o711 })
      await writeFile(join(dir, 'meta.json'), JSON.stringify(meta))
      const cgroup = await SandboxCgroup.create(this.cgroups, this.cgroupParent, id, limits)
      const disk = await createDisk(dir, limits.diskBytes, meta.uid)
      await this.seedHome(disk, meta.uid)
      let egress: SandboxEgress | undefined
      if (policy) {
        this.proxy ??= new EgressProxy(this.proxyOptions)
        egress = await attachSandboxEgress(this.proxy, id, dir, policy, meta.uid)
      }
      const sandbox: LocalSandbox = {
        ...meta,
        dir,
        egress,
        cgroup,
        kernel: this.startKernel(dir, meta.uid, cgroup, egress),
        queue: Promise.resolve(),
      }
      this.sandboxes.set(id, sandbox)
      await this.awaitReady(sandbox.kernel)
      return { id, limits, createdAt: meta.createdAt }
    } catch (error) {
      await this.destroy(id).catch(() => undefined)
      throw error
    }
  }

  async destroy(id: string): Promise<void> {
    if (!ID_PATTERN.test(id)) throw new SandboxError(`no sandbox ${id}`, 'sandbox_not_found')
    const sandbox = this.sandboxes.get(id)
    this.sandboxes.delete(id)
    sandbox?.kernel.kill()
    await this.proxy?.detach(id)
    await (sandbox?.cgroup ?? SandboxCgroup.existing(this.cgroups, this.cgroupParent, id)).remove()
    await removeDisk(join(this.stateDir, id))
  }

  async list(): Promise<SandboxInfo[]> {
    const found = new Map<string, SandboxInfo>()
    const entries = await readdir(this.stateDir).catch(() => [])
    for (const id of [...entries, ...(await listCgroups(this.cgroups, this.cgroupParent))]) {
      if (!ID_PATTERN.test(id) || found.has(id)) continue
      const meta = await readFile(join(this.stateDir, id, 'meta.json'), 'utf8')
        .then((text) => JSON.parse(text) as Partial<Meta>)
        .catch(() => ({}) as Partial<Meta>)
      found.set(id, { id, createdAt: meta.createdAt ?? 0, attached: this.sandboxes.has(id) })
    }
    return [...found.values()].sort((a, b) => a.createdAt - b.createdAt)
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.sandboxes.keys()].map((id) => this.destroy(id).catch(() => undefined)),
    )
    await this.proxy?.close()
  }

  /** Paths for tests and operators: the sandbox's cgroup folders and its disk's mount point. */
  inspect(id: string): { cgroupDirs: string[]; disk: string; hostUid: number; kernelPid?: number } {
    const sandbox = this.mustGet(id)
    return {
      cgroupDirs: sandbox.cgroup.dirs,
      disk: join(sandbox.dir, DISK_MOUNT),
      hostUid: sandbox.uid,
      kernelPid: sandbox.kernel.pid,
    }
  }

  protected override async runNow(
    sandbox: LocalSandbox,
    request: RunRequest,
    signal: AbortSignal | undefined,
    retried = false,
  ): Promise<RunResult> {
    const restarted = (await this.reviveIfDead(sandbox)) || retried
    const started = performance.now()
    const kernel = sandbox.kernel
    const outcome = await awaitRun(kernel, request, sandbox.limits, signal)
    if (outcome.ended === 'reply') {
      if (outcome.reply.code === 'run_not_started' && !retried) {
        // The code never ran, so running it once more after a clean start is safe.
        await sandbox.cgroup.killAll()
        await kernel.exited
        await this.restartKernel(sandbox)
        return this.runNow(sandbox, request, signal, true)
      }
      return toRunResult(outcome.reply, performance.now() - started, restarted)
    }
    // Timed out, cancelled, or the kernel died mid-run (out of memory, os._exit): clear the cgroup
    // of whatever the run started and give the sandbox a fresh kernel.
    await sandbox.cgroup.killAll()
    const exitCode = await kernel.exited
    await this.restartKernel(sandbox)
    return killedResult(
      outcome.ended,
      exitCode,
      performance.now() - started,
      sandbox.limits.runTimeoutMs,
      true,
    )
  }

  /** Restarts a kernel that died between requests; true when it did. */
  protected override async reviveIfDead(sandbox: LocalSandbox): Promise<boolean> {
    if (sandbox.kernel.alive) return false
    await sandbox.cgroup.killAll()
    await this.restartKernel(sandbox)
    return true
  }

  private async restartKernel(sandbox: LocalSandbox): Promise<void> {
    sandbox.kernel = this.startKernel(sandbox.dir, sandbox.uid, sandbox.cgroup, sandbox.egress)
    await this.awaitReady(sandbox.kernel)
  }

  private startKernel(
    dir: string,
    uid: number,
    cgroup: SandboxCgroup,
    egress: SandboxEgress | undefined,
  ): Kernel {
    const plan: LaunchPlan = {
      rootfs: this.rootfs,
      disk: join(dir, DISK_MOUNT),
      kernelDir: KERNEL_DIR,
      hostUid: uid,
      procsFiles: cgroup.procsFiles,
      egress,
    }
    return new KernelProcess(plan, this.seccompPath)
  }

  private async awaitReady(kernel: Kernel): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('the sandbox kernel did not start in time')),
        STARTUP_TIMEOUT_MS,
      )
    })
    try {
      const ready = await Promise.race([kernel.ready, timeout])
      if (ready.op !== 'ready') throw new Error('the sandbox kernel did not say it was ready')
    } catch (error) {
      kernel.kill()
      if (error instanceof KernelExitedError) {
        throw new SandboxError(`the sandbox failed to start: ${error.message}`, 'sandbox_failed')
      }
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  private async seedHome(disk: string, uid: number): Promise<void> {
    const skeleton = join(this.rootfs, HOME_SKELETON)
    if (!existsSync(skeleton)) return
    const home = join(disk, 'mnt', 'home')
    await cp(skeleton, home, { recursive: true })
    const own = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name)
        await chown(full, uid, uid)
        if (entry.isDirectory()) await own(full)
      }
    }
    await own(home)
  }

  private allocateUid(): number {
    const used = new Set([...this.sandboxes.values()].map((s) => s.uid))
    for (;;) {
      const uid = this.uidBase + randomInt(UID_RANGE)
      if (!used.has(uid)) return uid
    }
  }
}
