/** The container's limits from the code-execution spec, named after its words. */
export const CPU_COUNT = 2
export const MEMORY_BYTES = 4 * 1024 ** 3
export const DISK_BYTES = 5 * 1024 ** 3
export const RUN_TIMEOUT_MS = 120_000
/** Not in the spec: enough for pandas, matplotlib and a shell pipeline, too few for a fork bomb. */
export const PIDS_MAX = 512
/** Bytes kept of each of stdout and stderr per run: the first half and the last half. */
export const OUTPUT_CAP_BYTES = 64 * 1024

export interface SandboxLimits {
  /** CPUs' worth of time per period, enforced by the cpu controller's quota. */
  cpus: number
  /** Memory, with swap forbidden. */
  memoryBytes: number
  /** Size of the container's writable area (`/mnt` and `/tmp`). */
  diskBytes: number
  /** Tasks (processes and threads) alive at once. */
  pidsMax: number
  /** Wall-clock limit of one run; past it everything the run started is killed. */
  runTimeoutMs: number
  /** Bytes of each output stream kept per run (head + tail). */
  outputCapBytes: number
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpus: CPU_COUNT,
  memoryBytes: MEMORY_BYTES,
  diskBytes: DISK_BYTES,
  pidsMax: PIDS_MAX,
  runTimeoutMs: RUN_TIMEOUT_MS,
  outputCapBytes: OUTPUT_CAP_BYTES,
})

const bounds: Record<keyof SandboxLimits, [number, number]> = {
  cpus: [0.01, 1024],
  memoryBytes: [32 * 1024 ** 2, 2 ** 50],
  diskBytes: [16 * 1024 ** 2, 2 ** 50],
  pidsMax: [16, 4_194_304],
  runTimeoutMs: [100, 24 * 3600 * 1000],
  outputCapBytes: [256, 64 * 1024 ** 2],
}

/** Merges overrides onto the defaults, rejecting values the kernel or the runner cannot honour. */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...overrides }
  for (const key of Object.keys(bounds) as (keyof SandboxLimits)[]) {
    const value = limits[key]
    const [min, max] = bounds[key]
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      throw new RangeError(`sandbox limit ${key} must be a number from ${min} to ${max}`)
    }
    if (key !== 'cpus' && !Number.isInteger(value)) {
      throw new RangeError(`sandbox limit ${key} must be an integer`)
    }
  }
  return limits
}
