import { effectiveContainerLimit } from '@syntic/server/config'
import {
  checkContainerLimit,
  checkEgressHost,
  checkName,
  checkTier,
  MAX_EGRESS_HOSTS,
  type OrgSettings,
  type OrgSettingsPatch,
} from '@syntic/server/store'
import { Command } from 'commander'
import { CommandFailure, type ConfigIo, processConfigIo, runAction, usage } from './command-io.js'
import { withServerStore } from './server-store.js'

/** What the commands read and write: the process's own, or a test's. */
export type OrgsIo = ConfigIo

interface SetOptions {
  codeExecution?: string
  containerLimit?: string
  egressAllow?: string
  egressNone?: boolean
  tier?: string
  json?: boolean
}

type Tiers = Parameters<typeof effectiveContainerLimit>[1]

function checkOrg(org: string): void {
  const problem = checkName('org', org)
  if (problem !== null) throw usage(problem)
}

/** The options as a patch, every value checked; a usage error names the first bad one. */
function patchOf(options: SetOptions): OrgSettingsPatch {
  const patch: OrgSettingsPatch = {}
  if (options.codeExecution !== undefined) {
    const value = options.codeExecution.toLowerCase()
    if (value !== 'on' && value !== 'off') throw usage('--code-execution takes on or off')
    patch.codeExecution = value === 'on'
  }
  if (options.containerLimit !== undefined) {
    const raw = options.containerLimit
    if (raw === 'tier') {
      patch.containerLimitOverride = null
    } else {
      const value = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN
      const problem = checkContainerLimit(value)
      if (problem !== null) throw usage(`--container-limit: ${problem} (or tier, for the tier's)`)
      patch.containerLimitOverride = value
    }
  }
  if (options.egressAllow !== undefined && options.egressNone) {
    throw usage('give --egress-allow or --egress-none, not both')
  }
  if (options.egressNone) patch.egressAllowlist = []
  if (options.egressAllow !== undefined) {
    const hosts: string[] = []
    for (const raw of options.egressAllow.split(',')) {
      const checked = checkEgressHost(raw)
      if ('problem' in checked) throw usage(`--egress-allow: ${checked.problem}`)
      if (!hosts.includes(checked.host)) hosts.push(checked.host)
    }
    if (hosts.length > MAX_EGRESS_HOSTS) {
      throw usage(`--egress-allow takes at most ${MAX_EGRESS_HOSTS} hosts`)
    }
    patch.egressAllowlist = hosts
  }
  if (options.tier !== undefined) {
    const problem = checkTier(options.tier)
    if (problem !== null) throw usage(`--tier: ${problem}`)
    patch.tier = options.tier
  }
  return patch
}

/** The settings as stored, and the limit the server applies with the tiers of this config. */
type Shown = OrgSettings & { containerLimit: number }

function describe(settings: Shown): string[] {
  const egress = settings.egressAllowlist
  const override = settings.containerLimitOverride
  return [
    `org              ${settings.org}`,
    `code execution   ${settings.codeExecution ? 'on' : 'off'}`,
    `tier             ${settings.tier}`,
    `override         ${override === null ? "none (the tier's limit)" : `${override} live containers`}`,
    `container limit  ${settings.containerLimit} live containers`,
    `egress           ${egress.length === 0 ? 'none (no network)' : egress.join(', ')}`,
    `updated          ${settings.updatedAt ?? 'never (defaults)'}`,
  ]
}

function print(io: OrgsIo, stored: OrgSettings, tiers: Tiers, json: boolean | undefined): void {
  const settings: Shown = { ...stored, containerLimit: effectiveContainerLimit(stored, tiers) }
  const lines = json ? [JSON.stringify(settings, null, 2)] : describe(settings)
  io.stdout(`${lines.join('\n')}\n`)
}

function showCommand(io: OrgsIo): Command {
  return new Command('show')
    .description("show an organisation's settings")
    .argument('<org>', 'the organisation')
    .option('--json', 'print JSON')
    .action((org: string, opts: { json?: boolean }) =>
      runAction(io, async () => {
        checkOrg(org)
        await withServerStore(io, 'store', async (store, { tiers }) => {
          const settings = await store.getOrgSettings(org)
          if (settings === null) {
            throw new CommandFailure(
              `there is no organisation ${org}; \`syntic orgs set\` or \`syntic keys create --org\` makes one`,
              1,
            )
          }
          print(io, settings, tiers, opts.json)
        })
      }),
    )
}

function setCommand(io: OrgsIo): Command {
  return new Command('set')
    .description("change an organisation's settings (creating it when missing)")
    .argument('<org>', 'the organisation')
    .option('--code-execution <on|off>', 'allow syntic_code_execution (off: 403 tool_disabled)')
    .option(
      '--container-limit <n|tier>',
      "live containers at once, overriding the tier's limit (tier: use the tier's again)",
    )
    .option(
      '--egress-allow <hosts>',
      'comma-separated hosts code may reach, like pypi.org,*.pythonhosted.org',
    )
    .option('--egress-none', 'no network for code (the default)')
    .option('--tier <name>', "the organisation's tier, whose limit the server's config sets")
    .option('--json', 'print JSON')
    .addHelpText('after', '\nRunning servers apply a change within 5 seconds.')
    .action((org: string, opts: SetOptions) =>
      runAction(io, async () => {
        checkOrg(org)
        const patch = patchOf(opts)
        if (Object.keys(patch).length === 0) {
          throw usage(
            'nothing to set: give --code-execution, --container-limit, --egress-allow, --egress-none or --tier',
          )
        }
        await withServerStore(io, 'store', async (store, { tiers }) => {
          print(io, await store.updateOrgSettings(org, patch), tiers, opts.json)
        })
      }),
    )
}

/** `syntic orgs show|set`, on the store the server uses (same environment). */
export function orgsCommand(io: OrgsIo = processConfigIo): Command {
  return new Command('orgs')
    .description('show and change organisation settings: code execution, container limit, egress')
    .addCommand(showCommand(io))
    .addCommand(setCommand(io))
}
