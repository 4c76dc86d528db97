import type { Located, PathJail } from '../jail/index.js'
import { ToolError } from '../result.js'

/** The folder the model sees unless the application picks another (`displayRoot`). */
export const DISPLAY_ROOT = '/memories'

/** Names the tool keeps for itself (lock file, temp files of atomic writes). */
export const RESERVED_PREFIX = '.syntic-'

const LEADING_DOTS = /^(?:\.\/+)+/

// Models often drop the leading slash and write `memories/notes.md`. Read relative to /memories
// that would be /memories/memories/notes.md, which nobody means, so a path that starts with the
// display root minus its slash is taken as absolute. The root `/` has no such spelling.
export function normalizeMemoryPath(input: string, displayRoot: string): string {
  if (displayRoot === '/') return input
  const bare = displayRoot.slice(1)
  const stripped = input.replace(LEADING_DOTS, '')
  return stripped === bare || stripped.startsWith(`${bare}/`) ? `/${stripped}` : input
}

export function isReservedName(name: string): boolean {
  return name.startsWith(RESERVED_PREFIX)
}

/** The model's path checked and placed in the jail; reserved names are refused. */
export function locateMemory(jail: PathJail, input: string): Located {
  const normal = normalizeMemoryPath(input, jail.displayRoot)
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
    const root = jail.displayRoot
    throw new ToolError(
      command === 'delete'
        ? `cannot delete ${root} itself; delete the files or folders inside it one by one`
        : `${root} is the memory folder itself; give a file path such as ${jail.displayOf(['notes.md'])}`,
    )
  }
  return location
}
