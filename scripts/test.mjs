#!/usr/bin/env node
// Runs every compiled test file with node's test runner and fails a run that executed no test.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensurePodman } from './podman.mjs'
import { ensurePostgres } from './postgres.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

function findTests(dir) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...findTests(full))
    else if (/\.test\.m?js$/.test(entry.name)) found.push(full)
  }
  return found
}

const filter = process.argv.slice(2)
const files = readdirSync(join(root, 'packages'))
  .flatMap((pkg) => findTests(join(root, 'packages', pkg, 'dist')))
  .concat(findTests(join(root, 'bench')))
  .map((file) => relative(root, file))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort()

if (files.length === 0) {
  console.error('test: no test files found')
  process.exit(1)
}

// The PostgreSQL adapter's tests run against a real server, installed and started here.
const databaseUrl = await ensurePostgres()
// The Docker driver's tests run against Podman's Docker-compatible API service, started here.
const dockerHost = await ensurePodman()

const outDir = join(root, '.test-out')
mkdirSync(outDir, { recursive: true })
const tapFile = join(outDir, 'report.tap')
const result = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      SYNTIC_TEST_DATABASE_URL: databaseUrl,
      SYNTIC_TEST_DOCKER_HOST: dockerHost,
    },
  },
)

const tap = readFileSync(tapFile, 'utf8')
const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0)
const [tests, pass, fail] = [count('tests'), count('pass'), count('fail')]
console.log(`${pass} passed, ${fail} failed`)
if (tests === 0) {
  console.error('test: the run executed no test')
  process.exit(1)
}
process.exit(result.status ?? 1)
