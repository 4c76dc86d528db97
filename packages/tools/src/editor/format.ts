/** One line as `cat -n` prints it: the number right-aligned in 6 columns, a tab, the text. */
export function numbered(line: number, text: string): string {
  return `${String(line).padStart(6)}\t${text}`
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

export function describeSize(bytes: number): string {
  if (bytes < 1024) return plural(bytes, 'byte')
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}

/**
 * Joins lines while they fit in `budget` characters (newlines included) and reports how many
 * did, so the caller can say where the output stops.
 */
export function fitLines(
  lines: readonly string[],
  budget: number,
): { text: string; count: number } {
  let used = 0
  let count = 0
  for (const line of lines) {
    const cost = line.length + (count > 0 ? 1 : 0)
    if (used + cost > budget) break
    used += cost
    count++
  }
  return { text: lines.slice(0, count).join('\n'), count }
}
