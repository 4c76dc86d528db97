#!/usr/bin/env node
// Makes a real PostgreSQL available to the tests: installs Debian's package when missing (as
// root), keeps a private cluster under .test-out/pg on 127.0.0.1:54329 with trust auth, starts it
// when it is not running, and creates the syntic_test database. Prints the URL when run directly.
// Node built-ins only, since it runs before anything else is installed.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Uncommon, so it meets neither a system PostgreSQL (5432) nor another developer tool.
const PORT = 54329
const HOST = '127.0.0.1'
const DATABASE = 'syntic_test'
const SUPERUSER = 'postgres'
// A unix socket path is limited to 107 bytes; a deep checkout gets TCP only.
const SOCKET_PATH_LIMIT = 100

const isRoot = process.getuid?.() === 0
const { base, dataDir, logFile } = clusterPaths()

function log(message) {
  process.stderr.write(`postgres: ${message}\n`)
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
function asOwner(program, args) {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args]
}

function run(program, args) {
  const [cmd, argv] = asOwner(program, args)
  // A working folder the postgres user may not enter makes some of its programs complain.
  return spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/' })
}

/**
 * `.test-out/pg` in the checkout, unless the checkout lies where the postgres user cannot reach
 * (a home folder closed to others): then a folder in /tmp named after the checkout.
 */
function clusterPaths() {
  const outDir = join(root, '.test-out')
  mkdirSync(outDir, { recursive: true })
  let dir = join(outDir, 'pg')
  const reachable =
    !isRoot || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', outDir]).status === 0
  if (!reachable) {
    const tag = createHash('sha256').update(root).digest('hex').slice(0, 12)
    dir = join(tmpdir(), `syntic-test-pg-${tag}`)
  }
  return { base: dir, dataDir: join(dir, 'data'), logFile: join(dir, 'server.log') }
}

function must(program, args) {
  const result = run(program, args)
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim()
    throw new Error(`${program} ${args[0] ?? ''} failed (${result.status}): ${output}`)
  }
  return result.stdout
}

function findBinDir() {
  const lib = '/usr/lib/postgresql'
  if (!existsSync(lib)) return null
  const versions = readdirSync(lib)
    .filter((v) => existsSync(join(lib, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length > 0 ? join(lib, versions[0], 'bin') : null
}

function installPostgres() {
  if (!isRoot) {
    throw new Error('PostgreSQL is not installed; install the postgresql package (apt-get)')
  }
  log("installing postgresql from Debian's packages")
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const opts = { stdio: ['ignore', 'ignore', 'inherit'], env }
  execFileSync('apt-get', ['update', '-qq'], opts)
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'], opts)
}

function accepting(bin) {
  return (
    run(join(bin, 'pg_isready'), ['-q', '-h', HOST, '-p', String(PORT), '-t', '1']).status === 0
  )
}

function initCluster(bin) {
  mkdirSync(base, { recursive: true })
  chmodSync(base, 0o700)
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(base, uid, gid)
  }
  // What a failed initdb left behind would make the next one fail too.
  rmSync(dataDir, { recursive: true, force: true })
  log(`creating a test cluster in ${dataDir}`)
  must(join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    SUPERUSER,
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ])
}

function serverOptions() {
  const socketDir = `${base}/.s.PGSQL.${PORT}`.length <= SOCKET_PATH_LIMIT ? base : ''
  // Test data is thrown away, so durability is traded for speed.
  return [
    `-p ${PORT}`,
    `-c listen_addresses=${HOST}`,
    `-c unix_socket_directories='${socketDir}'`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ')
}

async function waitUntilAccepting(bin) {
  for (let i = 0; i < 60; i++) {
    if (accepting(bin)) return true
    await sleep(500)
  }
  return false
}

async function startCluster(bin) {
  log(`starting the test cluster on ${HOST}:${PORT}`)
  const result = run(join(bin, 'pg_ctl'), [
    '-D',
    dataDir,
    '-l',
    logFile,
    '-o',
    serverOptions(),
    '-w',
    '-t',
    '60',
    'start',
  ])
  // Another process may have started it meanwhile; what counts is that it now answers.
  if (result.status !== 0 && !(await waitUntilAccepting(bin))) {
    throw new Error(
      `pg_ctl start failed: ${`${result.stdout}${result.stderr}`.trim()} (see ${logFile})`,
    )
  }
}

function psql(bin, sql) {
  return must(join(bin, 'psql'), [
    '-h',
    HOST,
    '-p',
    String(PORT),
    '-U',
    SUPERUSER,
    '-d',
    'postgres',
    '-v',
    'ON_ERROR_STOP=1',
    '-tAc',
    sql,
  ]).trim()
}

function ensureDatabase(bin) {
  if (psql(bin, `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`) === '1') return
  const result = run(join(bin, 'createdb'), [
    '-h',
    HOST,
    '-p',
    String(PORT),
    '-U',
    SUPERUSER,
    DATABASE,
  ])
  if (result.status !== 0 && !/already exists/.test(result.stderr)) {
    throw new Error(`createdb failed: ${result.stderr.trim()}`)
  }
}

/** Makes the test PostgreSQL ready and returns its connection URL. */
export async function ensurePostgres() {
  let bin = findBinDir()
  if (bin === null) {
    installPostgres()
    bin = findBinDir()
    if (bin === null) throw new Error('postgresql installed, but no pg_ctl in /usr/lib/postgresql')
  }
  if (!accepting(bin)) {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) initCluster(bin)
    await startCluster(bin)
  }
  ensureDatabase(bin)
  return `postgresql://${SUPERUSER}@${HOST}:${PORT}/${DATABASE}`
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${await ensurePostgres()}\n`)
  } catch (error) {
    log(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
