/**
 * The `limit` best of `count` candidate documents, best first; equal scores keep catalog order so
 * that results are stable. Keeps a sorted list of at most `limit` entries: limits are small.
 */
export function topHits(
  scores: Float64Array,
  candidates: Int32Array,
  count: number,
  limit: number,
): number[] {
  const best: number[] = []
  if (!(limit >= 1)) return best
  if (limit * 8 >= count) {
    // Most candidates make the cut: sorting them all is cheaper than inserting one by one.
    const all = Array.from(candidates.subarray(0, count))
    all.sort((a, b) => scores[b]! - scores[a]! || a - b)
    return all.slice(0, limit)
  }
  for (let i = 0; i < count; i++) {
    const doc = candidates[i]!
    const score = scores[doc]!
    if (
      best.length === limit &&
      !ranksAbove(score, doc, scores[best[limit - 1]!]!, best[limit - 1]!)
    )
      continue
    let at = best.length
    while (at > 0 && ranksAbove(score, doc, scores[best[at - 1]!]!, best[at - 1]!)) at--
    best.splice(at, 0, doc)
    if (best.length > limit) best.pop()
  }
  return best
}

function ranksAbove(score: number, doc: number, otherScore: number, otherDoc: number): boolean {
  return score > otherScore || (score === otherScore && doc < otherDoc)
}
