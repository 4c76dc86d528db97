import { join } from 'node:path'
import { EGRESS_MOUNT, egressEnvironment, type SandboxEgress } from '../egress/sandbox-egress.js'
import type { SandboxLimits } from '../limits.js'
import { dockerSeccompProfile } from './seccomp-profile.js'

/** The image's `sandbox` user. */
export const SANDBOX_UID = 1000
export const SANDBOX_GID = 1000

export type DiskMode = 'loop' | 'tmpfs'

export interface ContainerPlan {
  image: string
  limits: SandboxLimits
  /** `loop`: the mounted disk on the daemon's machine, whose `mnt` and `tmp` are bound. */
  disk: { mode: 'loop'; dir: string } | { mode: 'tmpfs' }
  labels: Record<string, string>
  /**
   * How the daemon takes the seccomp profile: Docker wants the JSON itself; Podman's compatible
   * service wants a path on its machine; `default` keeps the daemon's own profile.
   */
  seccomp: { inline: true } | { path: string } | 'default'
  /** Present only when the sandbox has egress: the proxy socket's folder on the daemon's machine. */
  egress?: SandboxEgress
}

/**
 * The kernel runs under a shell, not as pid 1: pid 1 must reap the orphans of runs (a Python pid 1
 * would not), and the shell seeds the home from the image's skeleton (matplotlib's font cache) on
 * every start without overwriting what the user changed.
 */
const STARTUP = [
  'mkdir -p /mnt/input /mnt/output /mnt/home',
  'cp -Rn /opt/syntic/home/. /mnt/home/ 2>/dev/null',
  'cd /mnt/home || exit 125',
  '/usr/bin/python3 -u /opt/syntic/kernel/kernel.py',
  'exit $?',
].join('\n')

const MOUNT_OPTIONS = 'rw,nosuid,nodev'
const EGRESS_MOUNT_OPTIONS = 'ro,nosuid,nodev,noexec'
/** The kernel's default pid_max: as many processes as a uid can have at all. */
const NPROC = 32_768

/** The body of `POST /containers/create`: the local driver's limits, in Docker's words. */
export function containerSpec(plan: ContainerPlan): Record<string, unknown> {
  const { limits, egress } = plan
  // The container keeps no network: its forwarder reaches the proxy through this socket only.
  const egressBinds = egress ? [`${egress.socketDir}:${EGRESS_MOUNT}:${EGRESS_MOUNT_OPTIONS}`] : []
  const storage =
    plan.disk.mode === 'loop'
      ? {
          Binds: [
            `${join(plan.disk.dir, 'mnt')}:/mnt:${MOUNT_OPTIONS}`,
            `${join(plan.disk.dir, 'tmp')}:/tmp:${MOUNT_OPTIONS}`,
            ...egressBinds,
          ],
        }
      : {
          ...(egressBinds.length > 0 ? { Binds: egressBinds } : {}),
          Tmpfs: {
            '/mnt': `${MOUNT_OPTIONS},size=${limits.diskBytes},uid=${SANDBOX_UID},gid=${SANDBOX_GID},mode=0755`,
            '/tmp': `${MOUNT_OPTIONS},size=${limits.diskBytes},mode=1777`,
          },
        }
  return {
    Image: plan.image,
    Cmd: ['/bin/sh', '-c', STARTUP],
    User: `${SANDBOX_UID}:${SANDBOX_GID}`,
    WorkingDir: '/',
    Hostname: 'sandbox',
    Env: [
      'PATH=/usr/local/bin:/usr/bin:/bin',
      'HOME=/mnt/home',
      'USER=sandbox',
      'LANG=C.UTF-8',
      'MPLBACKEND=Agg',
      'PYTHONDONTWRITEBYTECODE=1',
      ...(egress ? egressEnvironment(egress).map(([name, value]) => `${name}=${value}`) : []),
    ],
    Labels: plan.labels,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      NanoCpus: Math.round(limits.cpus * 1e9),
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      PidsLimit: limits.pidsMax,
      NetworkMode: 'none',
      IpcMode: 'private',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges', ...seccompOption(plan.seccomp)],
      // nproc counts a uid's processes host-wide, so the pids limit does the per-sandbox work; an
      // explicit value also stops Podman from asking for more than its runtime may grant.
      Ulimits: [
        { Name: 'nofile', Soft: 4096, Hard: 4096 },
        { Name: 'nproc', Soft: NPROC, Hard: NPROC },
      ],
      ...storage,
    },
  }
}

function seccompOption(seccomp: ContainerPlan['seccomp']): string[] {
  if (seccomp === 'default') return []
  if ('path' in seccomp) return [`seccomp=${seccomp.path}`]
  return [`seccomp=${JSON.stringify(dockerSeccompProfile())}`]
}
