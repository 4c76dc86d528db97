import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  isStandardToolType,
  LATEST_SYNTIC_VERSION,
  resolveSynticVersion,
  standardToolDefinition,
  validateStandardToolOptions,
} from '@syntic/protocol'
import {
  MemoryTool,
  ShellTool,
  serveJsonLines,
  TextEditorTool,
  type ToolHandler,
} from '@syntic/tools'
import { Command, InvalidArgumentError, Option } from 'commander'

function positiveInteger(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer')
  return n
}

function fail(message: string): never {
  process.stderr.write(`syntic: ${message}\n`)
  process.exit(2)
}

async function serve(handler: ToolHandler): Promise<void> {
  const stop = () => {
    void Promise.resolve(handler.close?.()).finally(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  // A reader that goes away is not an error worth a stack trace.
  process.stdout.on('error', stop)
  await serveJsonLines(handler, process.stdin, process.stdout)
}

function editorCommand(): Command {
  return new Command('editor')
    .description('run syntic_text_editor calls read as JSON lines on stdin')
    .requiredOption('--root <dir>', 'the folder the editor is confined to (created if missing)')
    .option('--display-root <path>', 'the path the model sees for the folder, e.g. /workspace')
    .option('--history-dir <dir>', 'where undo history is kept')
    .action(async (opts: { root: string; displayRoot?: string; historyDir?: string }) => {
      const root = resolve(opts.root)
      mkdirSync(root, { recursive: true })
      await serve(
        new TextEditorTool({
          root,
          ...(opts.displayRoot ? { displayRoot: opts.displayRoot } : {}),
          ...(opts.historyDir ? { historyDir: resolve(opts.historyDir) } : {}),
        }),
      )
    })
}

function shellCommand(): Command {
  return new Command('shell')
    .description('run syntic_shell calls read as JSON lines on stdin, in one persistent session')
    .option('--cwd <dir>', 'the workspace folder the session starts in', '.')
    .option('--max-output-chars <n>', 'cut longer output, keeping head and tail', positiveInteger)
    .option('--no-sandbox', 'run without bubblewrap (trusted use only)')
    .option('--network', 'allow network access inside the sandbox')
    .addOption(
      new Option('--destructive <policy>', 'what to do with destructive commands')
        .choices(['deny', 'allow'])
        .default('deny'),
    )
    .action(
      async (opts: {
        cwd: string
        maxOutputChars?: number
        sandbox: boolean
        network?: boolean
        destructive: 'deny' | 'allow'
      }) => {
        await serve(
          new ShellTool({
            cwd: resolve(opts.cwd),
            sandbox: opts.sandbox,
            network: opts.network ?? false,
            confirm: () => opts.destructive === 'allow',
            ...(opts.maxOutputChars ? { maxOutputChars: opts.maxOutputChars } : {}),
          }),
        )
      },
    )
}

function memoryCommand(): Command {
  return new Command('memory')
    .description('run syntic_memory calls read as JSON lines on stdin')
    .requiredOption(
      '--dir <dir>',
      'the folder that holds the memory files (created 0700 if missing)',
    )
    .option('--display-root <path>', 'the path the model sees for the folder', '/memories')
    .action(async (opts: { dir: string; displayRoot: string }) => {
      let tool: MemoryTool
      try {
        tool = new MemoryTool({ dir: resolve(opts.dir), displayRoot: opts.displayRoot })
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error))
      }
      await serve(tool)
    })
}

function definitionCommand(): Command {
  return new Command('definition')
    .description('print what a standard tool type expands into, as JSON')
    .argument('<type>', 'syntic_text_editor, syntic_shell or syntic_memory')
    .option('--root <path>', 'the display root (editor, memory)')
    .option('--max-output-chars <n>', 'the output limit (shell)', positiveInteger)
    .option('--syntic-version <date>', 'the API version', LATEST_SYNTIC_VERSION)
    .action(
      (type: string, opts: { root?: string; maxOutputChars?: number; synticVersion: string }) => {
        if (!isStandardToolType(type)) {
          fail(`unknown tool type ${type}; use syntic_text_editor, syntic_shell or syntic_memory`)
        }
        const version = resolveSynticVersion(opts.synticVersion)
        if (!version.ok) fail(version.error)
        const entry: Record<string, unknown> = { type }
        if (opts.root !== undefined) entry.root = opts.root
        if (opts.maxOutputChars !== undefined) entry.max_output_chars = opts.maxOutputChars
        const options = validateStandardToolOptions(type, entry)
        if (!options.ok) fail(options.error)
        const definition = standardToolDefinition(type, options.options, version.version)
        process.stdout.write(`${JSON.stringify(definition, null, 2)}\n`)
      },
    )
}

export function toolCommand(): Command {
  return new Command('tool')
    .description('the standard client tools as JSON-lines processes, for any language')
    .addCommand(editorCommand())
    .addCommand(shellCommand())
    .addCommand(memoryCommand())
    .addCommand(definitionCommand())
}
