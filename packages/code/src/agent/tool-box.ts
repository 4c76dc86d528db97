// The three standard tools on the project folder. The shell can be replaced mid-command: closing
// it is the only way to stop a running command, and interrupting a turn must stop it.
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { basename, join } from 'node:path'
import {
  type ConfirmRequest,
  MemoryTool,
  ShellTool,
  TextEditorTool,
  type ToolHandler,
} from '@syntic/tools'

export interface ToolBoxOptions {
  /** The project folder. */
  cwd: string
  /** `~/.syntic`. */
  home: string
  sandbox: boolean
  network: boolean
  maxOutputChars: number
  /** The destructive-command gate, asked by the shell's classifier. */
  confirm: (request: ConfirmRequest) => Promise<boolean>
}

export const EDITOR = 'syntic_text_editor'
export const SHELL = 'syntic_shell'
export const MEMORY = 'syntic_memory'

/** `<name>-<hash of the real path>`: readable, and two projects of one name stay apart. */
export function projectId(cwd: string): string {
  let real = cwd
  try {
    real = realpathSync(cwd)
  } catch {
    // A folder that vanished still gets a stable id from the path it was given.
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root'
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12)
  return `${name}-${hash}`
}

/** Where the model's memory lives for this project: `~/.syntic/memory/<project id>/`. */
export function projectMemoryDir(home: string, cwd: string): string {
  return join(home, 'memory', projectId(cwd))
}

export class ToolBox {
  private readonly editor: TextEditorTool
  private readonly memory: MemoryTool
  private shell: ShellTool

  constructor(private readonly options: ToolBoxOptions) {
    this.editor = new TextEditorTool({
      root: options.cwd,
      historyDir: join(options.home, 'editor-history', projectId(options.cwd)),
    })
    this.memory = new MemoryTool({ dir: projectMemoryDir(options.home, options.cwd) })
    this.shell = this.newShell()
  }

  handler(name: string): ToolHandler | undefined {
    if (name === EDITOR) return this.editor
    if (name === SHELL) return this.shell
    if (name === MEMORY) return this.memory
    return undefined
  }

  /** Kills the running command (and its session); the next call starts a fresh shell. */
  async stopShell(): Promise<void> {
    const old = this.shell
    this.shell = this.newShell()
    await old.close()
  }

  async close(): Promise<void> {
    await this.shell.close()
  }

  private newShell(): ShellTool {
    return new ShellTool({
      cwd: this.options.cwd,
      sandbox: this.options.sandbox,
      network: this.options.network,
      maxOutputChars: this.options.maxOutputChars,
      confirm: this.options.confirm,
    })
  }
}
