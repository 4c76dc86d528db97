// What the subcommands share: where they write, and how a failure becomes one line on stderr and
// an exit code instead of a stack trace.

/** A failure already explained to the user, with the exit code it gets. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message)
  }
}

/** A mistake in the command line: exit code 2. */
export const usage = (message: string) => new CommandFailure(message, 2)

/** What a command writes to: the process's own streams, or a test's. */
export interface OutputIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  setExitCode: (code: number) => void
}

/** What a command that reads the server's config also needs: its environment and folder. */
export interface ConfigIo extends OutputIo {
  env: NodeJS.ProcessEnv
  cwd: () => string
}

export const processOutput: OutputIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  setExitCode: (code) => {
    process.exitCode = code
  },
}

export const processConfigIo: ConfigIo = {
  ...processOutput,
  env: process.env,
  cwd: () => process.cwd(),
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Runs an action; a failure is printed as `syntic: message` and sets its exit code (else 1). */
export async function runAction(io: OutputIo, action: () => Promise<void>): Promise<void> {
  try {
    await action()
  } catch (error) {
    io.stderr(`syntic: ${messageOf(error)}\n`)
    io.setExitCode(error instanceof CommandFailure ? error.exitCode : 1)
  }
}
