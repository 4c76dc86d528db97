// Mod permissions in `-p` mode, where nobody can answer a prompt: `--grant-mods NAME=PERM,...`
// and `--grant-all-mods`. A mod asking for something the flags do not answer is not started, and
// nothing is remembered for it, so a later run with the flags can still grant it.
import { PERMISSION_NAMES } from '@syntic/mod-sdk'
import { ConfigError } from '../config/config.js'
import type { GrantPrompt } from '../mods/host-port.js'

/** Approval to start a project's mod at all (the mod host's PROJECT_MOD_APPROVAL). */
const START = 'start'
const MOD_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/

export interface ModGrants {
  all: boolean
  byMod: Map<string, string[]>
}

/** Parses `name=notes,session.read` (or `name=` for none) flags; throws `ConfigError`. */
export function parseGrantFlags(specs: readonly string[], all: boolean): ModGrants {
  const byMod = new Map<string, string[]>()
  for (const spec of specs) {
    const eq = spec.indexOf('=')
    if (eq === -1) {
      throw new ConfigError(
        `--grant-mods ${spec}: expected NAME=PERMISSION,... (permissions: ${PERMISSION_NAMES.join(', ')})`,
      )
    }
    const name = spec.slice(0, eq)
    if (!MOD_NAME.test(name)) throw new ConfigError(`--grant-mods: "${name}" is not a mod name`)
    const list = spec
      .slice(eq + 1)
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
    for (const permission of list) {
      if (!(PERMISSION_NAMES as readonly string[]).includes(permission)) {
        throw new ConfigError(
          `--grant-mods ${name}: unknown permission "${permission}" (one of ${PERMISSION_NAMES.join(', ')})`,
        )
      }
    }
    byMod.set(name, [...(byMod.get(name) ?? []), ...list])
  }
  return { all, byMod }
}

export function printGrantPrompt(grants: ModGrants): GrantPrompt {
  return async (mod, wanted) => {
    if (grants.all) return wanted
    const given = grants.byMod.get(mod.name)
    if (given === undefined) {
      throw new Error(
        `-p mode cannot ask; pass --grant-mods ${mod.name}=${wanted.filter((w) => w !== START).join(',')} or --grant-all-mods`,
      )
    }
    return wanted.filter((w) => w === START || given.includes(w))
  }
}
