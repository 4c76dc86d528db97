// Words of one family in a catalog: "reimburse" and "reimbursement", "cancel" and "cancelled",
// "refund" and "refunded". The keyword tokenizer folds plurals only (stemming further ranked worse
// there), so a query's word can miss the catalog's form of it; this finds that form.

/** A shorter word this long or more, less a final "e", must begin the longer one. */
const MIN_ROOT = 5
/** What may follow the root in the longer word: a suffix, not another word ("formatting"). */
const MAX_SUFFIX = 6

export class WordFamilies {
  private readonly sorted: readonly string[]

  constructor(terms: Iterable<string>) {
    this.sorted = [...terms].filter((term) => term.length >= MIN_ROOT).sort()
  }

  /** Catalog terms of the word's family, the word itself left out. */
  of(word: string): string[] {
    if (word.length < MIN_ROOT || /\d/.test(word)) return []
    const root = rootOf(word)
    const found: string[] = []
    // Words that begin with the root: the word's longer forms, and itself.
    for (let i = lowerBound(this.sorted, root); i < this.sorted.length; i++) {
      const term = this.sorted[i] as string
      if (!term.startsWith(root)) break
      if (term !== word && term.length - root.length <= MAX_SUFFIX) found.push(term)
    }
    // Shorter forms the word begins with: each prefix of it that is a catalog term's root.
    for (
      let length = Math.max(MIN_ROOT, word.length - MAX_SUFFIX);
      length < root.length;
      length++
    ) {
      const prefix = word.slice(0, length)
      for (const term of [prefix, `${prefix}e`]) {
        if (term !== word && this.has(term) && !found.includes(term)) found.push(term)
      }
    }
    return found
  }

  private has(term: string): boolean {
    return this.sorted[lowerBound(this.sorted, term)] === term
  }
}

function rootOf(word: string): string {
  return word.endsWith('e') && word.length > MIN_ROOT ? word.slice(0, -1) : word
}

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((sorted[mid] as string) < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
