// Finding mods: `~/.syntic/mods/<name>/mod.json` (the user's) and
// `<project>/.syntic/mods/<name>/mod.json` (the project's, which wins a name clash).
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { HostLine } from './host-port.js'
import { MANIFEST_FILE, type ModManifest, readManifest } from './manifest.js'

export type ModSource = 'user' | 'project'

export interface FoundMod {
  manifest: ModManifest
  /** The mod's folder, resolved (symbolic links followed). */
  dir: string
  source: ModSource
}

export function modsFolder(base: string): string {
  return join(base, '.syntic', 'mods')
}

function listFolder(
  folder: string,
  source: ModSource,
  warnings: HostLine[],
): Map<string, FoundMod> {
  const found = new Map<string, FoundMod>()
  let entries: string[]
  try {
    entries = readdirSync(folder).sort()
  } catch {
    return found
  }
  for (const entry of entries) {
    let dir: string
    try {
      dir = realpathSync(join(folder, entry))
    } catch {
      continue
    }
    if (!existsSync(join(dir, MANIFEST_FILE))) continue
    const result = readManifest(dir, entry)
    if (result.ok) {
      found.set(entry, { manifest: result.manifest, dir, source })
    } else {
      warnings.push({
        kind: 'warning',
        mod: entry,
        text: `mod ${entry} was not started: ${join(folder, entry, MANIFEST_FILE)} ${result.error}`,
      })
    }
  }
  return found
}

/** The mods to run, user mods first then project mods, each group by name. */
export function discoverMods(
  homeDir: string,
  projectDir: string,
): { mods: FoundMod[]; warnings: HostLine[] } {
  const warnings: HostLine[] = []
  const userFolder = modsFolder(homeDir)
  const projectFolder = modsFolder(projectDir)
  const user = listFolder(userFolder, 'user', warnings)
  let project = new Map<string, FoundMod>()
  if (safeRealpath(projectFolder) !== safeRealpath(userFolder)) {
    project = listFolder(projectFolder, 'project', warnings)
  }
  for (const [name, mod] of project) {
    if (!user.has(name)) continue
    user.delete(name)
    warnings.push({
      kind: 'warning',
      mod: name,
      text: `mod ${name}: the project's mod in ${mod.dir} is used instead of yours in ${join(userFolder, name)}`,
    })
  }
  return { mods: [...user.values(), ...project.values()], warnings }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
