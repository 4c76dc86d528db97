import { checkName, DEFAULT_WORKSPACE, type KeyRecord } from '@syntic/server/store'
import { Command } from 'commander'
import { CommandFailure, type ConfigIo, processConfigIo, runAction, usage } from './command-io.js'
import { withServerStore } from './server-store.js'

/** What the commands read and write: the process's own, or a test's. */
export type KeysIo = ConfigIo

function checkNames(names: { org?: string; workspace?: string }): void {
  for (const kind of ['org', 'workspace'] as const) {
    const value = names[kind]
    const problem = value === undefined ? null : checkName(kind, value)
    if (problem !== null) throw usage(problem)
  }
}

function print(io: KeysIo, lines: string[]): void {
  io.stdout(`${lines.join('\n')}\n`)
}

function table(records: KeyRecord[]): string[] {
  const rows = [
    ['ID', 'ORG', 'WORKSPACE', 'PREFIX', 'CREATED', 'REVOKED'],
    ...records.map((k) => [k.id, k.org, k.workspace, k.prefix, k.createdAt, k.revokedAt ?? '-']),
  ]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  )
}

function createCommand(io: KeysIo): Command {
  return new Command('create')
    .description('create an API key; the org and workspace are created when missing')
    .requiredOption('--org <name>', 'the organisation the key belongs to')
    .option('--workspace <name>', 'the workspace in the organisation', DEFAULT_WORKSPACE)
    .addHelpText('after', '\nThe key is printed alone on the last line, only this once.')
    .action((opts: { org: string; workspace: string }) =>
      runAction(io, async () => {
        checkNames(opts)
        await withServerStore(io, 'key store', async (store) => {
          const { key, record } = await store.createKey(opts)
          print(io, [
            `Created ${record.id} in org ${record.org}, workspace ${record.workspace}.`,
            'The key below is shown only this once; keep it secret.',
            key,
          ])
        })
      }),
    )
}

function revokeCommand(io: KeysIo): Command {
  return new Command('revoke')
    .description('revoke an API key at once, by its id (key_...) or by the key itself')
    .argument('<key-id-or-secret>', 'the key id from `syntic keys list`, or the sk_live_ key')
    .action((idOrSecret: string) =>
      runAction(io, () =>
        withServerStore(io, 'key store', async (store) => {
          const record = await store.revokeKey(idOrSecret)
          // The input is not repeated: it may be a secret, or anything at all.
          if (record === null) throw new CommandFailure('no key has that id or secret', 1)
          print(io, [
            `Revoked ${record.id} (org ${record.org}, workspace ${record.workspace}, ${record.prefix}...) at ${record.revokedAt}.`,
          ])
        }),
      ),
    )
}

function listCommand(io: KeysIo): Command {
  return new Command('list')
    .description('list API keys: ids, orgs, workspaces and prefixes, never the keys')
    .option('--org <name>', 'only the keys of this organisation')
    .option('--json', 'print a JSON array instead of a table')
    .action((opts: { org?: string; json?: boolean }) =>
      runAction(io, async () => {
        checkNames(opts)
        await withServerStore(io, 'key store', async (store) => {
          const records = await store.listKeys(opts.org === undefined ? {} : { org: opts.org })
          if (opts.json) print(io, [JSON.stringify(records, null, 2)])
          else if (records.length === 0) print(io, ['No keys.'])
          else print(io, table(records))
        })
      }),
    )
}

/** `syntic keys create|revoke|list`, on the store the server uses (same environment). */
export function keysCommand(io: KeysIo = processConfigIo): Command {
  return new Command('keys')
    .description('create, revoke and list API keys (store from SYNTIC_HOME or SYNTIC_DATABASE_URL)')
    .addCommand(createCommand(io))
    .addCommand(revokeCommand(io))
    .addCommand(listCommand(io))
}
