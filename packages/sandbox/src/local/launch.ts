import { join } from 'node:path'

export interface LaunchPlan {
  rootfs: string
  /** The mounted disk: its `mnt` becomes `/mnt`, its `tmp` becomes `/tmp`. */
  disk: string
  /** Folder holding kernel.py, mounted read-only at /opt/syntic/kernel. */
  kernelDir: string
  /** The host uid the sandbox runs as: unprivileged, one per sandbox. */
  hostUid: number
  /** cgroup.procs files the launcher joins before anything else runs. */
  procsFiles: string[]
  /** Present only when the sandbox has egress: without it no proxy socket is mounted. */
  egress?: LaunchEgress
}

export interface LaunchEgress {
  /** Host folder holding the proxy's Unix socket for this sandbox. */
  socketDir: string
  /** The package index for pip, when a mirror is configured. */
  mirror?: { url: string; host: string; insecure: boolean }
}

/** Where the sandbox sees its proxy socket, and the loopback port its forwarder listens on. */
export const EGRESS_MOUNT = '/opt/syntic/egress'
export const EGRESS_SOCKET_NAME = 'proxy.sock'
export const EGRESS_PORT = 3128

/** The fd bwrap reads the seccomp program from (the spawn's fourth stdio slot). */
export const SECCOMP_FD = 3

/**
 * Runs as root: joins the sandbox's cgroups with its own pid, then execs, so bwrap and every
 * process of the sandbox are born inside the limits; there is no window in which user code runs
 * outside them.
 */
const LAUNCHER = [
  'IFS=:',
  'for f in $SYNTIC_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done',
  'unset IFS SYNTIC_CGROUP_PROCS',
  'exec "$@"',
].join('\n')

export function launchCommand(plan: LaunchPlan): {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
} {
  const uid = String(plan.hostUid)
  const args = [
    '-c',
    LAUNCHER,
    'syntic-sandbox',
    'setpriv',
    `--reuid=${uid}`,
    `--regid=${uid}`,
    '--clear-groups',
    '--no-new-privs',
    'bwrap',
    ...bwrapArgs(plan),
  ]
  return {
    command: '/bin/sh',
    args,
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SYNTIC_CGROUP_PROCS: plan.procsFiles.join(':') },
  }
}

export function bwrapArgs(plan: LaunchPlan): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--uid',
    '1000',
    '--gid',
    '1000',
    '--hostname',
    'sandbox',
    '--ro-bind',
    plan.rootfs,
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--bind',
    join(plan.disk, 'mnt'),
    '/mnt',
    '--bind',
    join(plan.disk, 'tmp'),
    '/tmp',
    '--ro-bind',
    plan.kernelDir,
    '/opt/syntic/kernel',
    '--new-session',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--seccomp',
    String(SECCOMP_FD),
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/mnt/home',
    '--setenv',
    'USER',
    'sandbox',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'MPLBACKEND',
    'Agg',
    '--setenv',
    'PYTHONDONTWRITEBYTECODE',
    '1',
    ...egressArgs(plan.egress),
    '--chdir',
    '/mnt/home',
    '/usr/bin/python3',
    '-u',
    '/opt/syntic/kernel/kernel.py',
  ]
}

/** Mounts the proxy socket and points every client (curl, pip, urllib) at the forwarder. */
function egressArgs(egress: LaunchEgress | undefined): string[] {
  if (!egress) return []
  const proxy = `http://127.0.0.1:${EGRESS_PORT}`
  const env: [string, string][] = [
    ['SYNTIC_EGRESS_SOCKET', `${EGRESS_MOUNT}/${EGRESS_SOCKET_NAME}`],
    ['SYNTIC_EGRESS_PORT', String(EGRESS_PORT)],
    ...['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'].flatMap((name): [string, string][] => [
      [name, proxy],
      [name.toLowerCase(), proxy],
    ]),
    ['NO_PROXY', 'localhost,127.0.0.1,::1'],
    ['no_proxy', 'localhost,127.0.0.1,::1'],
  ]
  if (egress.mirror) {
    env.push(['PIP_INDEX_URL', egress.mirror.url])
    if (egress.mirror.insecure) env.push(['PIP_TRUSTED_HOST', egress.mirror.host])
  }
  return [
    '--bind',
    egress.socketDir,
    EGRESS_MOUNT,
    ...env.flatMap(([name, value]) => ['--setenv', name, value]),
  ]
}
