import {
  buildImage,
  formatBytes,
  LocalDriver,
  type LocalDriverOptions,
  type RunLanguage,
} from '@syntic/sandbox'
import { Command, InvalidArgumentError, Option } from 'commander'
import { type OutputIo, processOutput, runAction } from './command-io.js'

/** What the commands write to: the process's own streams, or a test's. */
export type SandboxIo = OutputIo

function seconds(value: string): number {
  const n = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= 0.1 && n <= 86_400)) {
    throw new InvalidArgumentError('expected seconds from 0.1 to 86400')
  }
  return n
}

interface DriverFlags {
  stateDir?: string
  cgroupParent?: string
}

const driverOptions = (command: Command): Command =>
  command
    .option('--state-dir <dir>', "where sandboxes' disks live (default: $TMPDIR/syntic-sandbox)")
    .option('--cgroup-parent <name>', 'cgroup holding the sandboxes (default: syntic-sandbox)')

function openDriver(flags: DriverFlags, extra: LocalDriverOptions = {}): Promise<LocalDriver> {
  return LocalDriver.open({
    ...extra,
    ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
    ...(flags.cgroupParent ? { cgroupParent: flags.cgroupParent } : {}),
  })
}

function buildImageCommand(io: SandboxIo): Command {
  return new Command('build-image')
    .description(
      'build the container image with debootstrap (cached; rebuilt when its recipe changes)',
    )
    .option('--force', 'build again even if the image for this recipe exists')
    .option('--cache-dir <dir>', 'where built images are kept')
    .action((opts: { force?: boolean; cacheDir?: string }) =>
      runAction(io, async () => {
        const result = await buildImage({
          force: opts.force ?? false,
          ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
          onProgress: (line) => io.stderr(`${line}\n`),
        })
        io.stdout(
          result.built
            ? `built ${result.rootfs} (${formatBytes(result.bytes)} in ${Math.round(result.durationMs / 1000)} s)\n`
            : `up to date: ${result.rootfs} (${formatBytes(result.bytes)})\n`,
        )
      }),
    )
}

function runCommand(io: SandboxIo): Command {
  return driverOptions(
    new Command('run')
      .description('run code in a fresh sandbox, print its output, remove the sandbox')
      .addOption(
        new Option('--language <language>', 'python or bash')
          .choices(['python', 'bash'])
          .default('python'),
      )
      .option('--timeout <seconds>', 'run timeout', seconds, 120)
      .argument('<code>', 'the code to run'),
  ).action((code: string, opts: DriverFlags & { language: RunLanguage; timeout: number }) =>
    runAction(io, async () => {
      const driver = await openDriver(opts, {
        limits: { runTimeoutMs: Math.round(opts.timeout * 1000) },
      })
      try {
        const { id } = await driver.create()
        const result = await driver.run(id, { language: opts.language, code })
        io.stdout(result.stdout.text)
        io.stderr(result.stderr.text)
        io.setExitCode(result.exitCode)
      } finally {
        await driver.close()
      }
    }),
  )
}

function listCommand(io: SandboxIo): Command {
  return driverOptions(
    new Command('list').description(
      "list this host's sandboxes, including orphans of stopped servers",
    ),
  ).action((opts: DriverFlags) =>
    runAction(io, async () => {
      const driver = await openDriver(opts)
      try {
        const sandboxes = await driver.list()
        if (sandboxes.length === 0) io.stdout('No sandboxes.\n')
        for (const s of sandboxes) {
          io.stdout(`${s.id}  ${s.createdAt ? new Date(s.createdAt).toISOString() : 'unknown'}\n`)
        }
      } finally {
        await driver.close()
      }
    }),
  )
}

function cleanCommand(io: SandboxIo): Command {
  return driverOptions(
    new Command('clean').description(
      'remove every sandbox of this host: processes, cgroups, disks (stop the server first)',
    ),
  ).action((opts: DriverFlags) =>
    runAction(io, async () => {
      const driver = await openDriver(opts)
      try {
        const sandboxes = await driver.list()
        for (const s of sandboxes) await driver.destroy(s.id)
        io.stdout(`Removed ${sandboxes.length} sandbox${sandboxes.length === 1 ? '' : 'es'}.\n`)
      } finally {
        await driver.close()
      }
    }),
  )
}

export function sandboxCommand(io: SandboxIo = processOutput): Command {
  return new Command('sandbox')
    .description('the code-execution sandbox: its image and the local driver')
    .addCommand(buildImageCommand(io))
    .addCommand(runCommand(io))
    .addCommand(listCommand(io))
    .addCommand(cleanCommand(io))
}
