import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

// The bubblewrap jail around the bash session. The whole file system is visible but read-only,
// the workspace is the one writable place (plus a private /tmp), and the session lives in its
// own pid namespace: when bwrap dies the kernel kills every process inside, however it detached.

export interface SandboxConfig {
  /** Absolute, symlink-free path of the workspace; mounted read-write at the same path. */
  workspace: string
  /** Where the shell starts. */
  cwd: string
  network: boolean
  /**
   * The user's home folder, hidden behind an empty tmpfs: it is where credentials live (~/.ssh,
   * ~/.aws, ~/.npmrc tokens, ~/.config/gh), and reading them needs no write access.
   */
  home?: string
}

function hidesHome(config: SandboxConfig): config is SandboxConfig & { home: string } {
  const { home, workspace } = config
  if (home === undefined || home === '/' || home === '' || !home.startsWith('/')) return false
  // A workspace that contains the home folder would be hidden with it.
  return !(home === workspace || home.startsWith(`${workspace}/`))
}

/** Arguments for bwrap, up to and including the `--` before the command. */
export function bwrapArgs(config: SandboxConfig): string[] {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // Before the workspace bind, so a workspace under /tmp is mounted on top of the empty tmpfs.
    '--tmpfs',
    '/tmp',
    // Likewise before the workspace bind, so a workspace inside the home folder stays visible.
    ...(hidesHome(config) ? ['--tmpfs', config.home] : []),
    // A read-only bind does not stop connect() on a socket file, and /run holds the host's
    // sockets (docker.sock, D-Bus, the user's systemd and ssh/gpg agents): any of them is a way
    // out. Hidden behind an empty tmpfs; only the resolver's files come back, for DNS when the
    // network is allowed (/etc/resolv.conf often links into /run/systemd/resolve).
    '--tmpfs',
    '/run',
    ...(config.network ? ['--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve'] : []),
    '--bind',
    config.workspace,
    config.workspace,
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ]
  if (!config.network) args.push('--unshare-net')
  args.push(
    // When bwrap runs as root it keeps every capability by default, and root with CAP_SYS_ADMIN
    // can simply `mount -o remount,rw /` and write through the "read-only" bind.
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    // A new session detaches from any terminal, closing the TIOCSTI input-injection hole.
    '--new-session',
    '--chdir',
    config.cwd,
    '--',
  )
  return args
}

/** The bwrap executable on PATH, or null when bubblewrap is not installed. */
export function findBwrap(path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, 'bwrap')
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this folder.
    }
  }
  return null
}

export const BWRAP_MISSING =
  'bubblewrap (bwrap) is not installed, so the shell cannot run sandboxed. Install it ' +
  '(`npm run setup` installs it; on Debian or Ubuntu: `apt-get install bubblewrap`), or create ' +
  'the ShellTool with `sandbox: false` to run commands without a sandbox (trusted use only).'
