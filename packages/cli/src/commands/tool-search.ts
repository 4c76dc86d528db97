import { readFile, writeFile } from 'node:fs/promises'
import { basename } from 'node:path'
import {
  type Catalog,
  type JudgedQuery,
  parseCatalog,
  parseQueries,
  type SearchMode,
  summarize,
  type ToolDocument,
  ToolSearch,
} from '@syntic/tool-search'
import { Command, InvalidArgumentError, Option } from 'commander'
import { CommandFailure, messageOf, type OutputIo, processOutput, runAction } from './command-io.js'

/** What the commands write to: the process's own streams, or a test's. */
export type ToolSearchIo = OutputIo

/** Results asked for per query: the spec's 10,000-tool ceiling is the most a catalog has. */
const MAX_K = 10_000

function resultCount(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1 || n > MAX_K) {
    throw new InvalidArgumentError(`expected an integer from 1 to ${MAX_K}`)
  }
  return n
}

const modeOption = () =>
  new Option('--mode <mode>', 'keyword or semantic')
    .choices(['keyword', 'semantic'])
    .default('keyword')

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : messageOf(error)
    throw new CommandFailure(`cannot read the ${what} ${path}: ${why}`, 1)
  }
}

async function loadCatalog(path: string): Promise<ToolDocument[]> {
  const text = await readText(path, 'catalog')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new CommandFailure(`the catalog ${path} is not valid JSON: ${messageOf(error)}`, 1)
  }
  try {
    return parseCatalog(value)
  } catch (error) {
    throw new CommandFailure(`the catalog ${path}: ${messageOf(error)}`, 1)
  }
}

async function loadQueries(path: string): Promise<JudgedQuery[]> {
  const text = await readText(path, 'query file')
  try {
    return parseQueries(text)
  } catch (error) {
    throw new CommandFailure(`the query file ${path}, ${messageOf(error)}`, 1)
  }
}

function openCatalog(tools: readonly ToolDocument[]): Catalog {
  return new ToolSearch({ maxCatalogs: 1 }).catalog(tools)
}

function queryCommand(io: ToolSearchIo): Command {
  return new Command('query')
    .description('search a catalog and print the ranked tool names with their scores')
    .requiredOption('--catalog <file>', 'JSON array of tools, request-style or bare functions')
    .addOption(modeOption())
    .option('--k <n>', 'how many results', resultCount, 10)
    .argument('<query>', 'what to search for')
    .action((query: string, opts: { catalog: string; mode: SearchMode; k: number }) =>
      runAction(io, async () => {
        const catalog = openCatalog(await loadCatalog(opts.catalog))
        const hits = await catalog.search(query, { mode: opts.mode, limit: opts.k })
        if (hits.length === 0) {
          io.stdout('No tool matches.\n')
          return
        }
        const width = Math.max(...hits.map((h) => h.score.toFixed(4).length))
        io.stdout(
          `${hits.map((h) => `${h.score.toFixed(4).padStart(width)}  ${h.name}`).join('\n')}\n`,
        )
      }),
    )
}

async function writeResults(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text)
  } catch (error) {
    throw new CommandFailure(`cannot write ${path}: ${messageOf(error)}`, 1)
  }
}

function evalCommand(io: ToolSearchIo): Command {
  return new Command('eval')
    .description('run every query of one or more sets; print Recall@1, @5, @10 and nDCG@10 as JSON')
    .requiredOption('--catalog <file>', 'JSON array of tools, request-style or bare functions')
    .requiredOption(
      '--queries <files...>',
      'JSONL query sets: {"id": ..., "query": "...", "gold": ["tool_name", ...]} per line',
    )
    .addOption(modeOption())
    .option('--k <n>', 'results retrieved per query', resultCount, 10)
    .option('--out <file>', 'write {"id": ..., "results": [names, best first]} per query')
    .action(
      (opts: { catalog: string; queries: string[]; mode: SearchMode; k: number; out?: string }) =>
        runAction(io, async () => {
          const catalog = openCatalog(await loadCatalog(opts.catalog))
          // An unwritable --out fails before the queries run, not after.
          if (opts.out !== undefined) await writeResults(opts.out, '')
          const sets = await Promise.all(
            opts.queries.map(async (path) => ({ path, queries: await loadQueries(path) })),
          )
          const lines: string[] = []
          for (const { path, queries } of sets) {
            const judged = []
            for (const query of queries) {
              const hits = await catalog.search(query.query, { mode: opts.mode, limit: opts.k })
              const results = hits.map((h) => h.name)
              judged.push({ gold: query.gold, results })
              lines.push(JSON.stringify({ id: query.id, results }))
            }
            const set = basename(path).replace(/\.jsonl$/, '')
            io.stdout(`${JSON.stringify({ set, mode: opts.mode, ...summarize(judged) })}\n`)
          }
          if (opts.out !== undefined) {
            await writeResults(opts.out, lines.length === 0 ? '' : `${lines.join('\n')}\n`)
          }
        }),
    )
}

/** `syntic tool-search query|eval`: for people who tune catalogs. */
export function toolSearchCommand(io: ToolSearchIo = processOutput): Command {
  return new Command('tool-search')
    .description('search a tool catalog, or measure search quality on judged queries')
    .addCommand(queryCommand(io))
    .addCommand(evalCommand(io))
}
