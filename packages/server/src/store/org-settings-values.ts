/** Bounds and shapes of organisation settings, checked by `syntic orgs set` before storing. */
export const MAX_CONTAINER_LIMIT = 10_000
export const MAX_EGRESS_HOSTS = 100
const TIER = /^[A-Za-z0-9._-]{1,64}$/
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * The host as stored (lower case), or a message saying what a host is. A host is a DNS name
 * (`pypi.org`), optionally `*.` for every subdomain of it (`*.pythonhosted.org`). No schemes,
 * ports, paths or addresses: the allowlist names services, and an address can be anyone's.
 */
export function checkEgressHost(raw: string): { host: string } | { problem: string } {
  const host = raw.trim().toLowerCase()
  const shown = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)
  const problem = {
    problem: `${shown} is not a host name; give names like pypi.org or *.pythonhosted.org`,
  }
  if (host.length === 0 || host.length > 253) return problem
  const name = host.startsWith('*.') ? host.slice(2) : host
  const labels = name.split('.')
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return problem
  if (/^\d+$/.test(labels.at(-1)!)) return problem
  return { host }
}

export function checkContainerLimit(value: number): string | null {
  return Number.isSafeInteger(value) && value >= 0 && value <= MAX_CONTAINER_LIMIT
    ? null
    : `the container limit must be a whole number from 0 to ${MAX_CONTAINER_LIMIT}`
}

export function checkTier(value: string): string | null {
  return TIER.test(value) ? null : "a tier name is 1 to 64 letters, digits, '-', '_' or '.'"
}
