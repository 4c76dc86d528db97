// The general search libraries the tool-search benchmark compares against, indexing the same
// catalog: name, description and the parameters' names and descriptions as flat text.
import { create, insertMultiple } from '@orama/orama'
import MiniSearch from 'minisearch'

function flatText(d) {
  const parts = []
  for (const [key, value] of Object.entries(d.parameters?.properties ?? {})) {
    parts.push(key, typeof value?.description === 'string' ? value.description : '')
  }
  return parts.join(' ')
}

export function buildMiniSearch(docs) {
  const mini = new MiniSearch({
    fields: ['name', 'description', 'params'],
    storeFields: ['name'],
    // The same reading of names as ours, so the peer is not handicapped by identifier splitting.
    tokenize: (text) => text.split(/[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])/),
  })
  mini.addAll(
    docs.map((d, id) => ({
      id,
      name: d.name,
      description: d.description ?? '',
      params: flatText(d),
    })),
  )
  return mini
}

export async function buildOrama(docs) {
  const db = create({ schema: { name: 'string', description: 'string', params: 'string' } })
  await insertMultiple(
    db,
    docs.map((d) => ({
      name: d.name.replace(/[_.-]|(?<=[a-z])(?=[A-Z])/g, ' '),
      description: d.description ?? '',
      params: flatText(d),
    })),
    10_000,
  )
  return db
}
