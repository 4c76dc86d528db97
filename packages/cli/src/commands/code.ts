import { readFileSync, statSync } from 'node:fs'
import type { CodeConfig, SessionEvent } from '@syntic/code'
import { Command, Option } from 'commander'

// The settings and action flags of `syntic code`, as commander parses them.
interface CodeFlags {
  print?: string
  model?: string
  mode?: string
  server?: string
  upstream?: string
  sandbox: boolean
  network?: boolean
  maxSteps?: string
  grantMods: string[]
  grantAllMods?: boolean
  mods: boolean
}

interface ModTestFlags {
  events?: string
  grant: string[]
}

const EXIT_USAGE = 2

function fail(message: string): never {
  process.stderr.write(`syntic code: ${message}\n`)
  process.exit(EXIT_USAGE)
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

const MAX_EVENTS_FILE_BYTES = 1024 * 1024
const MAX_PROMPT_CHARS = 1_000_000

/** Reads `--events FILE.jsonl`: one `{"event": ..., "data": {...}}` per line. */
function readEvents(file: string, names: readonly string[]): SessionEvent[] {
  let text: string
  try {
    // Sized before it is read: a huge file is refused without loading it.
    if (statSync(file).size > MAX_EVENTS_FILE_BYTES) fail(`--events ${file}: larger than 1 MB`)
    text = readFileSync(file, 'utf8')
  } catch (error) {
    fail(`--events ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
  const events: SessionEvent[] = []
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      fail(`--events ${file}:${i + 1}: not JSON`)
    }
    const value = parsed as { event?: unknown; data?: unknown }
    if (typeof value !== 'object' || value === null || typeof value.event !== 'string') {
      fail(`--events ${file}:${i + 1}: expected {"event": NAME, "data": {...}}`)
    }
    if (!names.includes(value.event)) {
      fail(`--events ${file}:${i + 1}: unknown event "${value.event}" (one of ${names.join(', ')})`)
    }
    if (typeof value.data !== 'object' || value.data === null || Array.isArray(value.data)) {
      fail(`--events ${file}:${i + 1}: "data" must be an object`)
    }
    events.push(value as SessionEvent)
  })
  return events
}

function modCommand(): Command {
  const mod = new Command('mod').description('develop Syntic Code mods')
  mod
    .command('test')
    .description('run a mod as Syntic Code would, send it events, show what it does')
    .argument('<dir>', "the mod's folder (with mod.json)")
    .option(
      '--events <file>',
      'events to send, one JSON object per line (default: a built-in script)',
    )
    .option(
      '--grant <permissions>',
      'grant these permissions (comma-separated; repeatable)',
      collect,
      [],
    )
    .action(async (dir: string, flags: ModTestFlags) => {
      const { SESSION_EVENT_NAMES, testMod } = await import('@syntic/code')
      const grant = flags.grant
        .flatMap((g) => g.split(','))
        .map((g) => g.trim())
        .filter((g) => g !== '')
      const events =
        flags.events === undefined ? undefined : readEvents(flags.events, SESSION_EVENT_NAMES)
      const code = await testMod(
        dir,
        { ...(events ? { events } : {}), ...(flags.grant.length > 0 ? { grant } : {}) },
        (line) => process.stdout.write(`${line}\n`),
      )
      process.exitCode = code
    })
  return mod
}

/**
 * `syntic code`: the terminal coding agent on the current folder. `-p PROMPT` runs one task and
 * prints the conversation; `mod test` tries out a mod.
 */
export function codeCommand(): Command {
  return new Command('code')
    .description('Syntic Code: the terminal coding agent, on the current folder')
    .option('-p, --print <prompt>', 'run one task, print the conversation to stdout, exit')
    .option('--model <name>', 'the model (default: SYNTIC_MODEL or "model" in ~/.syntic/code.json)')
    .addOption(
      new Option('--mode <mode>', 'permission mode').choices([
        'default',
        'acceptEdits',
        'plan',
        'bypass',
      ]),
    )
    .option(
      '--server <url>',
      'a Syntic server, e.g. http://127.0.0.1:8080/v1 (key: SYNTIC_API_KEY)',
    )
    .option('--upstream <url>', 'an OpenAI-compatible upstream (key: OPENAI_API_KEY, optional)')
    .option('--no-sandbox', 'run the shell without bubblewrap (trusted use only)')
    .option('--network', 'allow network access in the shell sandbox')
    .option('--max-steps <n>', 'model calls allowed in one turn (default 50)')
    .option(
      '--grant-mods <name=perms>',
      '-p: grant a mod permissions, e.g. clock=notes,session.read',
      collect,
      [],
    )
    .option('--grant-all-mods', '-p: grant every mod what it asks for')
    .option('--no-mods', 'start no mods')
    .addCommand(modCommand())
    .action(async (flags: CodeFlags, command: Command) => {
      const code = await import('@syntic/code')
      let config: CodeConfig
      let grants: ReturnType<typeof code.parseGrantFlags>
      try {
        config = code.resolveConfig({
          model: flags.model,
          mode: flags.mode,
          server: flags.server,
          upstream: flags.upstream,
          sandbox: command.getOptionValueSource('sandbox') === 'cli' ? flags.sandbox : undefined,
          network: flags.network,
          maxSteps: flags.maxSteps,
        })
        grants = code.parseGrantFlags(flags.grantMods, flags.grantAllMods === true)
      } catch (error) {
        if (error instanceof code.ConfigError) fail(error.message)
        throw error
      }
      const cwd = process.cwd()
      if (flags.print !== undefined) {
        if (flags.print.trim() === '') fail('-p needs a prompt')
        if (flags.print.length > MAX_PROMPT_CHARS)
          fail('the prompt is longer than 1,000,000 characters')
        process.exitCode = await code.runPrint({
          config,
          cwd,
          prompt: flags.print,
          grants,
          mods: flags.mods,
          out: process.stdout,
          err: process.stderr,
        })
        return
      }
      if (flags.grantMods.length > 0 || flags.grantAllMods) {
        fail('--grant-mods and --grant-all-mods are for -p; the screen asks instead')
      }
      process.exitCode = await code.runInteractive({ config, cwd, mods: flags.mods })
    })
}
