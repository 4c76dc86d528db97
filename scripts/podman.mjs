#!/usr/bin/env node
// Makes a real Docker Engine API available to the tests: Podman's Docker-compatible service.
// Installs Debian's `podman` and `runc` when missing (as root), keeps a private Podman (its own
// storage, run folder and containers.conf) under .test-out/podman, starts
// `podman system service` on a private unix socket when it does not answer, and waits for /_ping.
// Prints the socket as `unix://...` when run directly. Node built-ins only, since it runs before
// anything else is installed.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// A unix socket path is limited to 107 bytes; a deep checkout keeps its Podman in /tmp instead.
const SOCKET_PATH_LIMIT = 100
const START_TIMEOUT_MS = 60_000

const { base, socket } = servicePaths()

function log(message) {
  process.stderr.write(`podman: ${message}\n`)
}

function servicePaths() {
  let dir = join(root, '.test-out', 'podman')
  if (join(dir, 'podman.sock').length > SOCKET_PATH_LIMIT) {
    const tag = createHash('sha256').update(root).digest('hex').slice(0, 12)
    dir = join(tmpdir(), `syntic-test-podman-${tag}`)
  }
  return { base: dir, socket: join(dir, 'podman.sock') }
}

function installed(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0
}

function installPodman() {
  if (process.getuid?.() !== 0) {
    throw new Error('Podman is not installed; install the podman and runc packages (apt-get)')
  }
  log("installing podman and runc from Debian's packages")
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const opts = { stdio: ['ignore', 'ignore', 'inherit'], env }
  execFileSync('apt-get', ['update', '-qq'], opts)
  execFileSync(
    'apt-get',
    ['install', '-y', '-qq', '--no-install-recommends', 'podman', 'runc', 'e2fsprogs'],
    opts,
  )
}

/**
 * Podman's defaults assume systemd and crun; this host has neither working, so runc, the cgroupfs
 * manager and a file events log. Storage stays inside `base`, away from any system Podman.
 */
function writeConfig() {
  mkdirSync(join(base, 'storage'), { recursive: true })
  mkdirSync(join(base, 'run'), { recursive: true })
  const containersConf = join(base, 'containers.conf')
  writeFileSync(
    containersConf,
    [
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `events_logfile_path = "${join(base, 'events.log')}"`,
      `tmp_dir = "${join(base, 'run', 'libpod-tmp')}"`,
      `volume_path = "${join(base, 'storage', 'volumes')}"`,
      '',
      '[network]',
      `network_config_dir = "${join(base, 'networks')}"`,
      '',
    ].join('\n'),
  )
  const storageConf = join(base, 'storage.conf')
  writeFileSync(
    storageConf,
    [
      '[storage]',
      'driver = "overlay"',
      `graphroot = "${join(base, 'storage')}"`,
      `runroot = "${join(base, 'run')}"`,
      '',
    ].join('\n'),
  )
  return { containersConf, storageConf }
}

/** The environment that selects this private Podman, for the service and for `podman` commands. */
export function podmanEnv() {
  return {
    ...process.env,
    CONTAINERS_CONF: join(base, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(base, 'storage.conf'),
  }
}

function ping() {
  return new Promise((done) => {
    if (!existsSync(socket)) {
      done(false)
      return
    }
    const req = request({ socketPath: socket, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume()
      done(res.statusCode === 200)
    })
    req.on('error', () => done(false))
    req.on('timeout', () => req.destroy())
    req.end()
  })
}

function startService() {
  log(`starting the Docker-compatible API service on ${socket}`)
  const out = openSync(join(base, 'service.log'), 'a')
  try {
    const child = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
      env: podmanEnv(),
      // conmon leaves files such as `oom` in the service's working folder: keep them in ours.
      cwd: base,
      stdio: ['ignore', out, out],
      detached: true,
    })
    child.unref()
    writeFileSync(join(base, 'service.pid'), `${child.pid}\n`)
  } finally {
    closeSync(out)
  }
}

/** Makes the test Podman service answer and returns its address (`unix:///...`). */
export async function ensurePodman() {
  if (await ping()) return `unix://${socket}`
  if (!installed('podman') || !installed('runc')) installPodman()
  mkdirSync(base, { recursive: true })
  writeConfig()
  startService()
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (await ping()) return `unix://${socket}`
    await sleep(200)
  }
  throw new Error(`the Podman service did not answer on ${socket} (see ${base}/service.log)`)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${await ensurePodman()}\n`)
  } catch (error) {
    log(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
