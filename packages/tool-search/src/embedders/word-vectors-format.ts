// The compact word-vector file. Rows are in the source's frequency order (row = rank, 0 is the
// most common word); words are looked up by binary search over a byte-sorted permutation, so
// loading builds nothing and takes about as long as reading the file.
//
//   offset 0   8 bytes    magic "SYNWV\x02\0\0"
//          8   u32        word count n
//         12   u32        dimensions d
//         16   u32        vocabulary byte length v
//         20   u32        reserved (0)
//         24   f32[n]     scale per row: value = int8 * scale
//          .   u32[n+1]   byte offset of each row's word in the vocabulary (last = v)
//          .   u32[n]     rows sorted by their word's UTF-8 bytes
//          .   i8[n*d]    vectors, row-major
//          .   u8[v]      the words, concatenated UTF-8

export const MAGIC = Buffer.from([0x53, 0x59, 0x4e, 0x57, 0x56, 0x02, 0x00, 0x00])
export const HEADER_BYTES = 24

export interface Layout {
  scales: number
  offsets: number
  sorted: number
  vectors: number
  vocab: number
  total: number
}

export function layout(count: number, dims: number, vocabBytes: number): Layout {
  const scales = HEADER_BYTES
  const offsets = scales + count * 4
  const sorted = offsets + (count + 1) * 4
  const vectors = sorted + count * 4
  const vocab = vectors + count * dims
  return { scales, offsets, sorted, vectors, vocab, total: vocab + vocabBytes }
}
