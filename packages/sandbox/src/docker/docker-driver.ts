import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { createDisk, DISK_MOUNT, removeDisk } from '../local/disk.js'
import { AttachedKernel } from './attached-kernel.js'
import { type ContainerPlan, containerSpec, type DiskMode, SANDBOX_UID } from './container-spec.js'
import { DockerApiError, DockerEngine, parseEngineHost } from './engine.js'
import { AGENT_DIR, ensureImage } from './image.js'
import { dockerSeccompProfile } from './seccomp-profile.js'

export interface DockerDriverOptions {
  /** `unix:///var/run/docker.sock`, a Podman socket, or `http://host:port`. */
  host: string
  /** An image already on the daemon; by default the built rootfs is imported once, by its hash. */
  image?: string
  /** The rootfs to import when `image` is not given; by default the built image's. */
  rootfs?: string
  /**
   * How `/mnt` and `/tmp` get their size limit. `loop` (default for unix sockets): a loop-mounted
   * ext4 file on this machine, bind-mounted, the limit enforced by the filesystem; needs root and
   * a daemon on this machine. `tmpfs` (default otherwise): size-capped tmpfs, which the memory
   * limit also covers and which a container restart (after a timeout) empties.
   */
  disk?: DiskMode
  /** Where `loop` disks live. */
  stateDir?: string
  /** Label value that tells this driver's sandboxes from others' on the same daemon. */
  group?: string
  /** Defaults for `create()`, over the spec's limits. */
  limits?: Partial<SandboxLimits>
  /**
   * The package mirror every sandbox may reach (pip's index); by default
   * `SYNTIC_PACKAGE_MIRROR_URL`, if set. Null: none, whatever the environment says. Needs a local
   * daemon, as all egress does.
   */
  packageMirror?: PackageMirror | null
  /** Limits and resolver of the host-side egress proxy (started with the first sandbox using it). */
  egressProxy?: EgressProxyOptions
}

const STARTUP_TIMEOUT_MS = 60_000
const REMOTE_EGRESS =
  'sandbox egress needs the Docker daemon on this machine (a unix:// host): the proxy socket is bind-mounted into each container'
const ID_PATTERN = /^sbx-[0-9a-f]{16}$/
const GROUP_PATTERN = /^[\w.-]{1,64}$/
export const SANDBOX_LABEL = 'syntic.sandbox'

interface DockerSandbox {
  id: string
  createdAt: number
  limits: SandboxLimits
  kernel: AttachedKernel
  /** Requests to one sandbox run one after another. */
  queue: Promise<unknown>
}

interface ContainerSummary {
  Id: string
  Labels?: Record<string, string>
}

/**
 * Sandboxes as containers on a Docker Engine API (Docker, or Podman's compatible service): the
 * kernel is the container's main process, spoken to over the attach stream; the same limits as
 * the local driver, enforced by the daemon's runtime and cgroups.
 */
export class DockerDriver extends KernelDriver<DockerSandbox> implements SandboxDriver {
  readonly name = 'docker'
  /** Egress works only where the daemon can bind-mount the proxy's socket from this machine. */
  readonly egress: boolean
  private proxy: EgressProxy | null = null

  private constructor(
    readonly engine: DockerEngine,
    readonly image: string,
    readonly disk: DiskMode,
    private readonly stateDir: string,
    readonly group: string,
    private readonly defaults: Partial<SandboxLimits>,
    readonly seccomp: ContainerPlan['seccomp'],
    private readonly packageMirror: PackageMirror | null,
    private readonly proxyOptions: EgressProxyOptions,
  ) {
    super()
    this.egress = engine.address.local
  }

  static async open(options: DockerDriverOptions): Promise<DockerDriver> {
    const engine = new DockerEngine(parseEngineHost(options.host))
    const group = options.group ?? 'default'
    if (!GROUP_PATTERN.test(group)) throw new Error(`invalid sandbox group ${group}`)
    resolveLimits(options.limits)
    const packageMirror = driverPackageMirror(options.packageMirror)
    if (packageMirror && !engine.address.local) {
      throw new Error(`a package mirror cannot be honoured on ${options.host}: ${REMOTE_EGRESS}`)
    }
    const disk = options.disk ?? (engine.address.local ? 'loop' : 'tmpfs')
    if (disk !== 'loop' && disk !== 'tmpfs') throw new Error('disk must be "loop" or "tmpfs"')
    if (disk === 'loop') checkLoopDisks(engine)
    await engine.call('GET', '/_ping').catch((error: Error) => {
      throw new Error(`the Docker host ${options.host} does not answer: ${error.message}`)
    })
    const image =
      options.image ?? (await ensureImage(engine, options.rootfs ?? requireImage(), AGENT_DIR))
    const stateDir = options.stateDir ?? join(tmpdir(), 'syntic-docker-sandbox')
    if (disk === 'loop' || engine.address.local) {
      await mkdir(stateDir, { recursive: true, mode: 0o711 })
      await chmod(stateDir, 0o711)
    }
    const seccomp = await seccompDelivery(engine, stateDir)
    return new DockerDriver(
      engine,
      image,
      disk,
      stateDir,
      group,
      options.limits ?? {},
      seccomp,
      packageMirror,
      options.egressProxy ?? {},
    )
  }

  async create(options: CreateOptions = {}): Promise<SandboxHandle> {
    const { egress: egressOptions, ...overrides } = options
    const limits = resolveLimits({ ...this.defaults, ...overrides })
    const policy = resolveEgress(egressOptions, this.packageMirror)
    if (policy && !this.egress) throw new SandboxError(REMOTE_EGRESS, 'sandbox_failed')
    const id = `sbx-${randomBytes(8).toString('hex')}`
    const createdAt = Date.now()
    const dir = join(this.stateDir, id)
    try {
      let diskDir: string | undefined
      if (this.disk === 'loop' || policy) await mkdir(dir, { mode: 0o711 })
      if (this.disk === 'loop') diskDir = await createDisk(dir, limits.diskBytes, SANDBOX_UID)
      let egress: SandboxEgress | undefined
      if (policy) {
        // The daemon runs the container as the image's sandbox user, which is this uid here too.
        this.proxy ??= new EgressProxy(this.proxyOptions)
        egress = await attachSandboxEgress(this.proxy, id, dir, policy, SANDBOX_UID)
      }
      const spec = containerSpec({
        image: this.image,
        limits,
        disk: diskDir ? { mode: 'loop', dir: diskDir } : { mode: 'tmpfs' },
        seccomp: this.seccomp,
        egress,
        labels: {
          [SANDBOX_LABEL]: '1',
          [`${SANDBOX_LABEL}.id`]: id,
          [`${SANDBOX_LABEL}.group`]: this.group,
          [`${SANDBOX_LABEL}.created`]: String(createdAt),
        },
      })
      await this.engine.call('POST', `/containers/create?name=${containerName(id)}`, spec)
      const kernel = await this.startKernel(id)
      this.sandboxes.set(id, { id, createdAt, limits, kernel, queue: Promise.resolve() })
      return { id, limits, createdAt }
    } catch (error) {
      await this.destroy(id).catch(() => undefined)
      if (error instanceof SandboxError) throw error
      throw new SandboxError(
        `the sandbox failed to start: ${(error as Error).message}`,
        'sandbox_failed',
      )
    }
  }

  async destroy(id: string): Promise<void> {
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      throw new SandboxError(`no sandbox ${String(id).slice(0, 40)}`, 'sandbox_not_found')
    }
    const sandbox = this.sandboxes.get(id)
    this.sandboxes.delete(id)
    await this.removeContainer(id)
    sandbox?.kernel.close()
    await this.proxy?.detach(id)
    if (this.disk === 'loop') await removeDisk(join(this.stateDir, id))
    else if (this.engine.address.local)
      await rm(join(this.stateDir, id), { recursive: true, force: true })
  }

  async list(): Promise<SandboxInfo[]> {
    const filters = JSON.stringify({
      label: [`${SANDBOX_LABEL}=1`, `${SANDBOX_LABEL}.group=${this.group}`],
    })
    const containers = await this.engine.json<ContainerSummary[]>(
      'GET',
      `/containers/json?all=1&filters=${encodeURIComponent(filters)}`,
    )
    const found = new Map<string, SandboxInfo>()
    for (const c of containers) {
      const id = c.Labels?.[`${SANDBOX_LABEL}.id`] ?? ''
      if (!ID_PATTERN.test(id)) continue
      const createdAt = Number(c.Labels?.[`${SANDBOX_LABEL}.created`] ?? 0) || 0
      found.set(id, { id, createdAt, attached: this.sandboxes.has(id) })
    }
    // A disk whose container was never created (a crash in between) is an orphan too.
    if (this.disk === 'loop') {
      for (const entry of await readdir(this.stateDir).catch(() => [])) {
        if (ID_PATTERN.test(entry) && !found.has(entry)) {
          found.set(entry, { id: entry, createdAt: 0, attached: this.sandboxes.has(entry) })
        }
      }
    }
    return [...found.values()].sort((a, b) => a.createdAt - b.createdAt)
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.sandboxes.keys()].map((id) => this.destroy(id).catch(() => undefined)),
    )
    await this.proxy?.close()
  }

  /** For tests and operators: where the sandbox's loop disk is mounted, if it has one. */
  inspect(id: string): { container: string; disk?: string } {
    this.mustGet(id)
    return {
      container: containerName(id),
      ...(this.disk === 'loop' ? { disk: join(this.stateDir, id, DISK_MOUNT) } : {}),
    }
  }

  /** Removes the container; a daemon caught between states (stopping) is asked again. */
  private async removeContainer(id: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.engine.call('DELETE', `/containers/${containerName(id)}?force=1&v=1`)
        return
      } catch (error) {
        if (error instanceof DockerApiError && error.status === 404) return
        if (!(error instanceof DockerApiError && error.status >= 500) || attempt === 5) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      }
    }
  }

  /** Attaches before starting, so the kernel's first frame (ready) cannot be missed. */
  private async startKernel(id: string): Promise<AttachedKernel> {
    const { socket, head } = await this.engine.hijack(
      `/containers/${containerName(id)}/attach?stream=1&stdin=1&stdout=1&stderr=1`,
    )
    const kernel = new AttachedKernel(socket, head)
    try {
      await this.engine.call('POST', `/containers/${containerName(id)}/start`)
      await withTimeout(
        kernel.ready,
        STARTUP_TIMEOUT_MS,
        'the sandbox kernel did not start in time',
      )
      return kernel
    } catch (error) {
      kernel.close()
      throw error
    }
  }

  protected override async runNow(
    sandbox: DockerSandbox,
    request: RunRequest,
    signal: AbortSignal | undefined,
    retried = false,
  ): Promise<RunResult> {
    const restarted = (await this.reviveIfDead(sandbox)) || retried
    const started = performance.now()
    const outcome = await awaitRun(sandbox.kernel, request, sandbox.limits, signal)
    if (outcome.ended === 'reply') {
      if (outcome.reply.code === 'run_not_started' && !retried) {
        // The code never ran, so running it once more after a clean start is safe.
        await this.restartContainer(sandbox)
        return this.runNow(sandbox, request, signal, true)
      }
      if (outcome.reply.op !== 'error') {
        return toRunResult(outcome.reply, performance.now() - started, restarted)
      }
      // The run left the kernel unable to finish it (a fork bomb still running takes every pid):
      // like a kernel that died, a clean start of the container is the way back.
    }
    // Timed out, cancelled, or the kernel died mid-run (out of memory, os._exit): stopping the
    // container ends its pid namespace and so everything the run started; the next start brings a
    // new kernel.
    const exitCode = await this.restartContainer(sandbox)
    return killedResult(
      outcome.ended === 'reply' ? 'died' : outcome.ended,
      exitCode,
      performance.now() - started,
      sandbox.limits.runTimeoutMs,
      this.disk === 'loop',
    )
  }

  /** Restarts a container whose kernel stopped between requests; true when it did. */
  protected override async reviveIfDead(sandbox: DockerSandbox): Promise<boolean> {
    if (sandbox.kernel.alive) return false
    await this.restartContainer(sandbox)
    return true
  }

  /** Kills the container (if still running), returns its exit code, and starts it again. */
  private async restartContainer(sandbox: DockerSandbox): Promise<number> {
    const name = containerName(sandbox.id)
    sandbox.kernel.close()
    await this.engine
      .call('POST', `/containers/${name}/kill?signal=KILL`, undefined, [200, 204, 304, 409])
      .catch((error: Error) => {
        if (!(error instanceof DockerApiError && error.status === 500)) throw error
      })
    const { StatusCode } = await this.engine.json<{ StatusCode?: number }>(
      'POST',
      `/containers/${name}/wait?condition=not-running`,
    )
    sandbox.kernel = await this.startKernel(sandbox.id)
    return typeof StatusCode === 'number' ? StatusCode : 1
  }
}

/** Container names carry the sandbox id and nothing about the host. */
function containerName(id: string): string {
  return `syntic-${id}`
}

/**
 * Docker takes the profile inline. Podman's compatible service reads `seccomp=` as a file path, so
 * on this machine the profile is written beside the disks; a remote Podman keeps its own default
 * profile (which also refuses mount, namespaces, keyctl, bpf and the like).
 */
async function seccompDelivery(
  engine: DockerEngine,
  stateDir: string,
): Promise<ContainerPlan['seccomp']> {
  const version = await engine.json<{ Components?: { Name?: string }[] }>('GET', '/version')
  const podman = version.Components?.some((c) => /podman/i.test(c.Name ?? '')) ?? false
  if (!podman) return { inline: true }
  if (!engine.address.local) return 'default'
  const path = join(stateDir, 'seccomp.json')
  await writeFile(path, JSON.stringify(dockerSeccompProfile()), { mode: 0o644 })
  return { path }
}

function checkLoopDisks(engine: DockerEngine): void {
  if (!engine.address.local) {
    throw new Error('loop disks need the Docker daemon on this machine (a unix socket)')
  }
  if (process.getuid?.() !== 0) throw new Error('loop disks need root (mount)')
  for (const tool of ['mkfs.ext4', 'mount']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    } catch {
      throw new Error(`loop disks need ${tool} (apt-get install e2fsprogs util-linux)`)
    }
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
