import type { Located, PathJail } from '../jail/index.js'
import { ToolError } from '../result.js'

/** The folder the model sees; it maps to the application's memory directory. */
export const DISPLAY_ROOT = '/memories'

/** Names the tool keeps for itself (lock file, temp files of atomic writes). */
export const RESERVED_PREFIX = '.syntic-'

// Models often drop the leading slash and write `memories/notes.md`. Read relative to /memories
// that would be /memories/memories/notes.md, which nobody means, so it is taken as absolute.
const LEADING_DOTS = /^(?:\.\/+)+/
const BARE_ROOT = /^memories(?:\/|$)/

export function normalizeMemoryPath(input: string): string {
  const stripped = input.replace(LEADING_DOTS, '')
  return BARE_ROOT.test(stripped) ? `/${stripped}` : input
}

export function isReservedName(name: string): boolean {
  return name.startsWith(RESERVED_PREFIX)
}

/** The model's path checked and placed in the jail; reserved names are refused. */
export function locateMemory(jail: PathJail, input: string): Located {
  const normal = normalizeMemoryPath(input)
  let location: Located
  try {
    location = jail.locate(normal)
  } catch (error) {
    // The jail quotes the path it was given; quote the model's own spelling instead.
    if (error instanceof ToolError && normal !== input && error.message.startsWith(normal)) {
      throw new ToolError(input + error.message.slice(normal.length))
    }
    throw error
  }
  if (location.parts.some(isReservedName)) {
    throw new ToolError(
      `${location.display}: names starting with "${RESERVED_PREFIX}" are reserved for the memory tool's own files; choose another name`,
    )
  }
  return location
}

/** Like `locateMemory`, but for commands that need a file or subfolder, never the root. */
export function locateTarget(jail: PathJail, input: string, command: string): Located {
  const location = locateMemory(jail, input)
  if (location.parts.length === 0) {
    throw new ToolError(
      command === 'delete'
        ? `cannot delete ${DISPLAY_ROOT} itself; delete the files or folders inside it one by one`
        : `${DISPLAY_ROOT} is the memory folder itself; give a file path such as ${DISPLAY_ROOT}/notes.md`,
    )
  }
  return location
}
