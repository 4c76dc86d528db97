import { join } from 'node:path'
import { EGRESS_MOUNT, egressEnvironment, type SandboxEgress } from '../egress/sandbox-egress.js'

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
  egress?: SandboxEgress
}

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
function egressArgs(egress: SandboxEgress | undefined): string[] {
  if (!egress) return []
  const env = egressEnvironment(egress)
  return [
    '--bind',
    egress.socketDir,
    EGRESS_MOUNT,
    ...env.flatMap(([name, value]) => ['--setenv', name, value]),
  ]
}
