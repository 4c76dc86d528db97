// Small vector helpers over row-major Float32Arrays.

export function normalise(vectors: Float32Array, offset: number, dims: number): boolean {
  let norm = 0
  for (let i = 0; i < dims; i++) norm += (vectors[offset + i] as number) ** 2
  if (!(norm > 0)) return false
  const scale = 1 / Math.sqrt(norm)
  for (let i = 0; i < dims; i++) vectors[offset + i] = (vectors[offset + i] as number) * scale
  return true
}

export function dot(
  a: Float32Array,
  aOffset: number,
  b: Float32Array,
  bOffset: number,
  dims: number,
) {
  let sum = 0
  for (let i = 0; i < dims; i++) sum += (a[aOffset + i] as number) * (b[bOffset + i] as number)
  return sum
}

/**
 * `into[r]` = row r of a row-major matrix (`into.length` rows) dotted with the `dims` values of
 * `vector` from `offset`. Four rows per pass share each vector value, which with the loop free of
 * property reads runs about twice as fast as one dot product per row.
 */
export function matrixTimesVector(
  matrix: Float32Array,
  dims: number,
  vector: Float32Array,
  offset: number,
  into: Float64Array,
): void {
  const rows = into.length
  let r = 0
  for (; r + 3 < rows; r += 4) {
    const o0 = r * dims
    const o1 = o0 + dims
    const o2 = o1 + dims
    const o3 = o2 + dims
    let s0 = 0
    let s1 = 0
    let s2 = 0
    let s3 = 0
    for (let i = 0; i < dims; i++) {
      const x = vector[offset + i] as number
      s0 += x * (matrix[o0 + i] as number)
      s1 += x * (matrix[o1 + i] as number)
      s2 += x * (matrix[o2 + i] as number)
      s3 += x * (matrix[o3 + i] as number)
    }
    into[r] = s0
    into[r + 1] = s1
    into[r + 2] = s2
    into[r + 3] = s3
  }
  for (; r < rows; r++) {
    const o = r * dims
    let sum = 0
    for (let i = 0; i < dims; i++) sum += (vector[offset + i] as number) * (matrix[o + i] as number)
    into[r] = sum
  }
}

/**
 * The direction most vectors share (the first principal component, by power iteration). Averaged
 * word vectors all lean along it, so removing it makes cosines tell texts apart (SIF's last step).
 */
export function commonComponent(vectors: Float32Array, count: number, dims: number): Float32Array {
  let direction = new Float32Array(dims).fill(1 / Math.sqrt(dims))
  for (let iteration = 0; iteration < 12; iteration++) {
    const next = new Float32Array(dims)
    for (let row = 0; row < count; row++) {
      const offset = row * dims
      const along = dot(vectors, offset, direction, 0, dims)
      for (let i = 0; i < dims; i++)
        next[i] = (next[i] as number) + along * (vectors[offset + i] as number)
    }
    if (!normalise(next, 0, dims)) break
    direction = next
  }
  return direction
}

export function removeComponent(
  vectors: Float32Array,
  offset: number,
  direction: Float32Array,
  dims: number,
): void {
  const along = dot(vectors, offset, direction, 0, dims)
  for (let i = 0; i < dims; i++) {
    vectors[offset + i] = (vectors[offset + i] as number) - along * (direction[i] as number)
  }
}

/** Indices of the `limit` highest scores, best first; ties keep catalog order. */
export function best(scores: Float64Array, limit: number): number[] {
  const top: number[] = []
  for (let doc = 0; doc < scores.length; doc++) {
    const score = scores[doc] as number
    if (top.length === limit && score <= (scores[top[limit - 1] as number] as number)) continue
    let at = top.length
    while (at > 0 && score > (scores[top[at - 1] as number] as number)) at--
    top.splice(at, 0, doc)
    if (top.length > limit) top.pop()
  }
  return top
}
