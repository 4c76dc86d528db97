// Retrieval quality of one ranked list against the tools a request needs (binary relevance).

/** Share of the gold tools found in the first `k` results. */
export function recallAt(results: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold)
  if (wanted.size === 0) return 0
  let found = 0
  for (const name of new Set(results.slice(0, k))) if (wanted.has(name)) found++
  return found / wanted.size
}

/**
 * Normalised discounted cumulative gain at `k`: a gold tool at rank i (from 1) earns
 * 1 / log2(i + 1), divided by what the ideal order (all gold tools first) earns.
 */
export function ndcgAt(results: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold)
  if (wanted.size === 0) return 0
  const credited = new Set<string>()
  let gain = 0
  const top = Math.min(k, results.length)
  for (let i = 0; i < top; i++) {
    const name = results[i]!
    if (!wanted.has(name) || credited.has(name)) continue
    credited.add(name)
    gain += 1 / Math.log2(i + 2)
  }
  let ideal = 0
  for (let i = 0; i < Math.min(k, wanted.size); i++) ideal += 1 / Math.log2(i + 2)
  return gain / ideal
}

export interface QualityReport {
  queries: number
  'recall@1': number
  'recall@5': number
  'recall@10': number
  'ndcg@10': number
}

/** Means of the four figures over judged queries, rounded to four places. */
export function summarize(
  judged: readonly { results: readonly string[]; gold: readonly string[] }[],
): QualityReport {
  const sums = [0, 0, 0, 0]
  for (const { results, gold } of judged) {
    sums[0]! += recallAt(results, gold, 1)
    sums[1]! += recallAt(results, gold, 5)
    sums[2]! += recallAt(results, gold, 10)
    sums[3]! += ndcgAt(results, gold, 10)
  }
  const mean = (sum: number) =>
    judged.length === 0 ? 0 : Math.round((sum / judged.length) * 10_000) / 10_000
  return {
    queries: judged.length,
    'recall@1': mean(sums[0]!),
    'recall@5': mean(sums[1]!),
    'recall@10': mean(sums[2]!),
    'ndcg@10': mean(sums[3]!),
  }
}
