// A mod starts with an empty environment plus the spec's allow-list: no tokens, no keys, and a
// PATH that cannot pick up programs planted inside the opened project.
import { accessSync, chmodSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { PROTOCOL_VERSION } from '@syntic/mod-sdk'

const COPIED = ['HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR']
const COPIED_ON_WINDOWS = ['SYSTEMROOT', 'WINDIR', 'PATHEXT', 'TEMP', 'TMP', 'USERPROFILE']
const SYSTEM_FOLDERS = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
]

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Only absolute folders that exist and are not inside the project, plus the system folders. */
export function cleanPath(parentPath: string | undefined, projectDir: string): string[] {
  const project = realOrSelf(projectDir)
  const kept: string[] = []
  for (const entry of (parentPath ?? '').split(delimiter)) {
    if (!isAbsolute(entry) || !isFolder(entry)) continue
    if (isInside(realOrSelf(entry), project)) continue
    if (!kept.includes(entry)) kept.push(entry)
  }
  if (process.platform !== 'win32') {
    for (const folder of SYSTEM_FOLDERS) {
      if (isFolder(folder) && !kept.includes(folder)) kept.push(folder)
    }
  }
  return kept
}

export interface ModEnvironmentInput {
  name: string
  dir: string
  dataDir: string
  projectDir: string
  parentEnv: NodeJS.ProcessEnv
}

export function modEnvironment(input: ModEnvironmentInput): Record<string, string> {
  const env: Record<string, string> = {}
  const names = process.platform === 'win32' ? [...COPIED, ...COPIED_ON_WINDOWS] : COPIED
  for (const name of names) {
    const value = input.parentEnv[name]
    if (value !== undefined) env[name] = value
  }
  env.PATH = cleanPath(input.parentEnv.PATH, input.projectDir).join(delimiter)
  env.SYNTIC_MOD_NAME = input.name
  env.SYNTIC_MOD_DIR = input.dir
  env.SYNTIC_MOD_DATA = input.dataDir
  env.SYNTIC_MOD_PROTOCOL = String(PROTOCOL_VERSION)
  return env
}

/** `~/.syntic/mod-data/<name>/`, created before start and kept private (0700). */
export function ensureDataDir(homeDir: string, name: string): string {
  const dir = join(homeDir, '.syntic', 'mod-data', name)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (process.platform !== 'win32') chmodSync(dir, 0o700)
  return dir
}

/**
 * The program to start: a path with a separator resolves in the mod's folder; a bare name is
 * looked up on the cleaned PATH only, never on the user's.
 */
export function resolveProgram(
  program: string,
  modDir: string,
  path: string[],
): string | undefined {
  if (program.includes('/') || program.includes(sep)) {
    const full = resolve(modDir, program)
    return isExecutable(full) ? full : undefined
  }
  for (const folder of path) {
    const full = join(folder, program)
    if (isExecutable(full)) return full
  }
  return undefined
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
