// Words a request writes as one that a tool's name writes as two: "javascript" for
// `runJavaScript`, "copyediting" for `performCopyEditing`. Only joins the catalog's own names
// make are known, so a query word is never split on a guess ("decide" is not "dec" + "ide").
import { splitWords } from '../tokenize.js'

/** Each pair of adjacent words in a tool name, joined and tokenized, to the pair's own words. */
export function nameCompounds(
  names: readonly string[],
  tokenizer: (text: string) => string[],
): Map<string, readonly string[]> {
  const compounds = new Map<string, readonly string[]>()
  const words: string[] = []
  for (const name of names) {
    words.length = 0
    splitWords(name, words)
    for (let i = 0; i + 1 < words.length; i++) {
      const joined = tokenizer(words[i]! + words[i + 1]!)
      if (joined.length !== 1 || compounds.has(joined[0]!)) continue
      const parts = tokenizer(`${words[i]} ${words[i + 1]}`)
      if (parts.length > 0) compounds.set(joined[0]!, parts)
    }
  }
  return compounds
}
