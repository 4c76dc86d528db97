/**
 * The catalog cut or grown to `size` tools: copies of its tools with new names (`_v2`, `_v3`...)
 * and description words rotated, so a 10,000-tool catalog keeps the dev data's vocabulary without
 * repeating documents word for word.
 */
export function growCatalog(docs, size) {
  const out = docs.slice(0, size)
  for (let i = 0; out.length < size; i++) {
    const d = docs[i % docs.length]
    const words = (d.description ?? '').split(' ')
    const shift = 1 + (i % Math.max(1, words.length - 1))
    out.push({
      name: `${d.name}_v${2 + Math.floor(i / docs.length)}`,
      description: [...words.slice(shift), ...words.slice(0, shift)].join(' '),
      parameters: d.parameters,
    })
  }
  return out
}

/**
 * The grown catalog as a request delivers it: parsed from JSON text. Tools written alike then
 * share one object shape, as in a real request; the grown copies are otherwise built another way
 * than the originals, a mix no request has.
 */
export function requestCatalog(docs, size) {
  return JSON.parse(JSON.stringify(growCatalog(docs, size)))
}
