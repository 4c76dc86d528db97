import { existsSync, readFileSync, rmdirSync } from 'node:fs'
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SandboxLimits } from '../limits.js'

/** The cgroup hierarchy of this host: unified (v2), or v1 with one mount per controller. */
export type CgroupLayout =
  | { version: 2; root: string }
  | { version: 1; controllers: { cpu: string; memory: string; pids: string; freezer: string } }

const CPU_PERIOD_US = 100_000

/** Reads /proc/self/mounts: v2 when it has the controllers we need, else v1's mounts. */
export function detectCgroups(mounts = readFileSync('/proc/self/mounts', 'utf8')): CgroupLayout {
  const v1: Record<string, string> = {}
  let unified: string | undefined
  for (const line of mounts.split('\n')) {
    const [, path, type, options] = line.split(' ')
    if (!path || !options) continue
    if (type === 'cgroup2') unified ??= path
    if (type === 'cgroup') {
      for (const option of options.split(',')) v1[option] ??= path
    }
  }
  if (unified) {
    const available = readOptional(join(unified, 'cgroup.controllers')).split(/\s+/)
    if (['cpu', 'memory', 'pids'].every((c) => available.includes(c))) {
      return { version: 2, root: unified }
    }
  }
  const { cpu, memory, pids, freezer } = v1
  if (cpu && memory && pids && freezer) {
    return { version: 1, controllers: { cpu, memory, pids, freezer } }
  }
  throw new Error(
    'no usable cgroups: need cgroup v2 with the cpu, memory and pids controllers, or v1 with cpu, memory, pids and freezer mounted',
  )
}

function readOptional(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** One sandbox's cgroup (one folder per controller on v1), created with its limits set. */
export class SandboxCgroup {
  private constructor(
    readonly layout: CgroupLayout,
    readonly dirs: string[],
  ) {}

  static dirsFor(layout: CgroupLayout, parent: string, name: string): string[] {
    return layout.version === 2
      ? [join(layout.root, parent, name)]
      : Object.values(layout.controllers).map((mount) => join(mount, parent, name))
  }

  /** Reattaches to an existing group, e.g. an orphan's, to kill and remove it. */
  static existing(layout: CgroupLayout, parent: string, name: string): SandboxCgroup {
    return new SandboxCgroup(layout, SandboxCgroup.dirsFor(layout, parent, name))
  }

  static async create(
    layout: CgroupLayout,
    parent: string,
    name: string,
    limits: SandboxLimits,
  ): Promise<SandboxCgroup> {
    if (layout.version === 2) await enableControllers(layout.root, parent)
    const group = SandboxCgroup.existing(layout, parent, name)
    for (const dir of group.dirs) await mkdir(dir, { recursive: true })
    const quota = String(Math.round(limits.cpus * CPU_PERIOD_US))
    const memory = String(limits.memoryBytes)
    if (layout.version === 2) {
      const [dir] = group.dirs as [string]
      await writeFile(join(dir, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`)
      await writeFile(join(dir, 'memory.max'), memory)
      await writeFile(join(dir, 'memory.swap.max'), '0')
      await writeFile(join(dir, 'pids.max'), String(limits.pidsMax))
    } else {
      const at = (controller: keyof typeof layout.controllers, file: string) =>
        join(layout.controllers[controller], parent, name, file)
      await writeFile(at('cpu', 'cpu.cfs_period_us'), String(CPU_PERIOD_US))
      await writeFile(at('cpu', 'cpu.cfs_quota_us'), quota)
      await writeFile(at('memory', 'memory.limit_in_bytes'), memory)
      // memsw is memory plus swap: equal to the memory limit, it leaves no room for swap.
      if (existsSync(at('memory', 'memory.memsw.limit_in_bytes'))) {
        await writeFile(at('memory', 'memory.memsw.limit_in_bytes'), memory)
      }
      await writeFile(at('memory', 'memory.swappiness'), '0').catch(() => undefined)
      await writeFile(at('pids', 'pids.max'), String(limits.pidsMax))
    }
    return group
  }

  /** The files a process writes its pid into to join this group (every controller on v1). */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => join(dir, 'cgroup.procs'))
  }

  async pids(): Promise<number[]> {
    const text = await readFile(this.procsFiles[0]!, 'utf8').catch(() => '')
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => Number(line))
  }

  /**
   * Kills every process in the group. The group is frozen first (v1 freezer) or killed atomically
   * by the kernel (v2 cgroup.kill), so a fork bomb cannot outrun the kill.
   */
  async killAll(): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const pids = await this.pids()
      if (pids.length === 0) return
      if (this.layout.version === 2) {
        const dir = this.dirs[0]!
        const kill = join(dir, 'cgroup.kill')
        if (existsSync(kill)) await writeFile(kill, '1')
        else killEach(pids)
      } else {
        const freezerMount = this.layout.controllers.freezer
        const freezer = this.dirs.find((d) => d.startsWith(freezerMount))!
        await writeFile(join(freezer, 'freezer.state'), 'FROZEN').catch(() => undefined)
        killEach(await this.pids())
        await writeFile(join(freezer, 'freezer.state'), 'THAWED').catch(() => undefined)
      }
      await sleep(attempt < 10 ? 2 : 20)
    }
    throw new Error(`cgroup ${this.dirs[0]} still has processes after repeated kills`)
  }

  async remove(): Promise<void> {
    await this.killAll()
    for (const dir of this.dirs) {
      for (let attempt = 0; ; attempt++) {
        try {
          await rmdir(dir)
          break
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code
          if (code === 'ENOENT') break
          if (code !== 'EBUSY' || attempt >= 100) throw error
          await sleep(10)
        }
      }
    }
  }
}

function killEach(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/** v2 only distributes a controller to groups whose parent enabled it in cgroup.subtree_control. */
async function enableControllers(root: string, parent: string): Promise<void> {
  await mkdir(join(root, parent), { recursive: true })
  let dir = root
  for (const part of ['', ...parent.split('/')]) {
    dir = part ? join(dir, part) : dir
    const control = join(dir, 'cgroup.subtree_control')
    const enabled = (await readFile(control, 'utf8').catch(() => '')).split(/\s+/)
    const missing = ['cpu', 'memory', 'pids'].filter((c) => !enabled.includes(c))
    if (missing.length > 0) await writeFile(control, missing.map((c) => `+${c}`).join(' '))
  }
}

/** Names of the sandbox groups under `parent`, live or left over. */
export async function listCgroups(layout: CgroupLayout, parent: string): Promise<string[]> {
  const base =
    layout.version === 2 ? join(layout.root, parent) : join(layout.controllers.memory, parent)
  const entries = await readdir(base, { withFileTypes: true }).catch(() => [])
  return entries.filter((e) => e.isDirectory()).map((e) => e.name)
}

/** Removes the (empty) parent group of a driver's sandboxes, e.g. after tests; absent is fine. */
export function removeCgroupParent(layout: CgroupLayout, parent: string): void {
  const mounts = layout.version === 2 ? [layout.root] : Object.values(layout.controllers)
  for (const mount of mounts) {
    try {
      rmdirSync(join(mount, parent))
    } catch {
      // Never created under this controller, or already removed.
    }
  }
}
