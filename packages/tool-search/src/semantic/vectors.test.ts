import assert from 'node:assert/strict'
import { test } from 'node:test'
import { best, dot, matrixTimesVector } from './vectors.js'

function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648 - 0.5
  }
}

test('matrixTimesVector equals one dot product per row, for every row count and width', () => {
  const random = seeded(7)
  for (const dims of [1, 3, 4, 100, 101]) {
    for (const rows of [0, 1, 2, 3, 4, 5, 9]) {
      const matrix = Float32Array.from({ length: rows * dims }, random)
      const vector = Float32Array.from({ length: dims + 5 }, random)
      const into = new Float64Array(rows).fill(Number.NaN)
      matrixTimesVector(matrix, dims, vector, 5, into)
      for (let r = 0; r < rows; r++) {
        const expected = dot(vector, 5, matrix, r * dims, dims)
        assert.ok(Math.abs((into[r] as number) - expected) < 1e-9, `dims ${dims} row ${r}`)
      }
    }
  }
})

test('best keeps the highest scores in order, ties in catalog order, and no more than asked', () => {
  const scores = Float64Array.from([0.2, 0.9, 0.2, -1, 0.9, 0.5])
  assert.deepEqual(best(scores, 4), [1, 4, 5, 0])
  assert.deepEqual(best(scores, 100), [1, 4, 5, 0, 2, 3])
  assert.deepEqual(best(scores, 0), [])
  assert.deepEqual(best(new Float64Array(0), 3), [])
})
