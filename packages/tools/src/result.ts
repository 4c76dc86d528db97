/** What a handler returns: the text the model reads, and whether it reports a failure. */
export interface ToolResult {
  output: string
  is_error: boolean
}

/**
 * A failure the model can act on. Handlers throw it internally; `runSafely` turns it into an
 * `Error: ...` result, so nothing escapes to the application.
 */
export class ToolError extends Error {
  override name = 'ToolError'
}

export function success(output: string): ToolResult {
  return { output, is_error: false }
}

export function failure(message: string): ToolResult {
  return { output: `Error: ${message}`, is_error: true }
}

/** Runs a handler body and converts every throw into a text result. */
export async function runSafely(body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body()
  } catch (error) {
    if (error instanceof ToolError) return failure(error.message)
    return failure(describeUnexpected(error))
  }
}

function describeUnexpected(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  if (e && typeof e.code === 'string') {
    const known: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'operation not permitted',
      ENOSPC: 'no space left on the device',
      EROFS: 'the file system is read-only',
      EISDIR: 'the path is a folder',
      ENOTDIR: 'a part of the path is not a folder',
      ENOENT: 'no such file or folder',
      EMFILE: 'too many open files; try again',
      ENAMETOOLONG: 'the path is too long',
      ELOOP: 'too many levels of symbolic links',
    }
    return known[e.code] ?? `${e.code}: unexpected failure`
  }
  return error instanceof Error ? error.message : String(error)
}
