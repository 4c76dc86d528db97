import { chown, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type EgressPolicy,
  type PackageMirror,
  parseMirror,
  type ResolvedMirror,
} from './policy.js'
import type { EgressProxy } from './proxy.js'

/**
 * What every driver does to give a sandbox egress: a host folder holding the proxy's socket for
 * that sandbox, mounted at EGRESS_MOUNT, and an environment that makes the kernel start its
 * forwarder on EGRESS_PORT and points every client (curl, pip, urllib) at it.
 */
export const EGRESS_MOUNT = '/opt/syntic/egress'
export const EGRESS_SOCKET_NAME = 'proxy.sock'
export const EGRESS_PORT = 3128

export interface SandboxEgress {
  /** Host folder holding the proxy's Unix socket for this sandbox. */
  socketDir: string
  /** The package index for pip, when a mirror is configured. */
  mirror?: ResolvedMirror
}

/** The driver's package mirror: the option when given (null: none), else the environment's. */
export function driverPackageMirror(
  option: PackageMirror | null | undefined,
): PackageMirror | null {
  if (option !== undefined) {
    if (option) parseMirror(option)
    return option
  }
  const url = process.env.SYNTIC_PACKAGE_MIRROR_URL
  if (!url) return null
  const mirror = { url }
  parseMirror(mirror)
  return mirror
}

/**
 * Creates `<sandboxDir>/egress` (only `uid` may enter) and has the proxy listen there for the
 * sandbox; `uid` is the uid the sandbox's processes have on this host.
 */
export async function attachSandboxEgress(
  proxy: EgressProxy,
  id: string,
  sandboxDir: string,
  policy: EgressPolicy,
  uid: number,
): Promise<SandboxEgress> {
  const socketDir = join(sandboxDir, 'egress')
  await mkdir(socketDir, { mode: 0o700 })
  await chown(socketDir, uid, uid)
  await proxy.attach(id, join(socketDir, EGRESS_SOCKET_NAME), policy, uid)
  return { socketDir, mirror: policy.mirror ?? undefined }
}

/** The sandbox's environment for egress, as name/value pairs. */
export function egressEnvironment(egress: SandboxEgress): [string, string][] {
  const proxy = `http://127.0.0.1:${EGRESS_PORT}`
  const local = 'localhost,127.0.0.1,::1'
  const env: [string, string][] = [
    ['SYNTIC_EGRESS_SOCKET', `${EGRESS_MOUNT}/${EGRESS_SOCKET_NAME}`],
    ['SYNTIC_EGRESS_PORT', String(EGRESS_PORT)],
    ...['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'].flatMap((name): [string, string][] => [
      [name, proxy],
      [name.toLowerCase(), proxy],
    ]),
    ['NO_PROXY', local],
    ['no_proxy', local],
  ]
  if (egress.mirror) {
    env.push(['PIP_INDEX_URL', egress.mirror.url])
    if (egress.mirror.insecure) env.push(['PIP_TRUSTED_HOST', egress.mirror.host])
  }
  return env
}
