// Order statistics for latency samples.

/** The `q` quantile (0..1) of `values`, interpolated between the two nearest ranks. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN
  const sorted = Float64Array.from(values).sort()
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low)
}

export const median = (values) => quantile(values, 0.5)

/** Rounds to `digits` decimals, keeping numbers (not strings) for the JSON output. */
export function round(value, digits = 3) {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
