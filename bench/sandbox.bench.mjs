// The sandbox drivers side by side, local (bubblewrap + cgroups) and Docker Engine API on Podman:
// a cold container (create + first `print(1)`), the same from a pool of pre-started sandboxes, a
// second run in a warm container, and 20 containers at once. Baselines in the same run: bare
// bubblewrap starting the image's python3, and python3 on the host. Needs root and the built
// image; Podman is installed and started by scripts/podman.mjs. Run directly to print JSON.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  DockerDriver,
  LocalDriver,
  requireImage,
  SandboxPool,
} from '../packages/sandbox/dist/index.js'
import { ensurePodman } from '../scripts/podman.mjs'

const COLD = 10
const WARM = 50
const AT_ONCE = 20

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const ms = (value) => Number(value.toFixed(1))

function exec(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 && out === '1\n' ? resolve() : reject(new Error(`${command}: ${code} ${out}`)),
    )
  })
}

async function timeEach(n, action) {
  const times = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await action()
    times.push(performance.now() - start)
  }
  return times
}

async function printOne(driver, id) {
  const result = await driver.run(id, { language: 'python', code: 'print(1)' })
  if (result.stdout.text !== '1\n')
    throw new Error(`unexpected output ${JSON.stringify(result.stdout.text)}`)
  return result
}

/** Cold, pooled, second-run and burst figures of one driver. */
async function measureDriver(driver) {
  await printOne(driver, (await driver.create()).id)
  const cold = median(
    await timeEach(COLD, async () => {
      const { id } = await driver.create()
      await printOne(driver, id)
    }),
  )
  for (const s of await driver.list()) await driver.destroy(s.id)

  const pool = new SandboxPool(driver, { size: 2 })
  await pool.start()
  const pooledTimes = []
  for (let i = 0; i < COLD; i++) {
    await pool.settled()
    const start = performance.now()
    const { id } = await pool.acquire()
    await printOne(driver, id)
    pooledTimes.push(performance.now() - start)
    await driver.destroy(id)
  }
  await pool.close()
  const pooled = median(pooledTimes)

  const { id } = await driver.create()
  await printOne(driver, id)
  const overheads = []
  for (let i = 0; i < WARM; i++) {
    const start = performance.now()
    const result = await printOne(driver, id)
    overheads.push(performance.now() - start - result.durationMs)
  }
  const secondRun = median(overheads)
  await driver.destroy(id)

  const start = performance.now()
  const each = await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      const t = performance.now()
      const { id: one } = await driver.create()
      await printOne(driver, one)
      return performance.now() - t
    }),
  )
  const burstWall = performance.now() - start

  return { cold, pooled, secondRun, each, burstWall }
}

export async function run() {
  const rootfs = requireImage()
  const stateDir = mkdtempSync(join(tmpdir(), 'syntic-sandbox-bench-'))
  const cgroupParent = `syntic-bench-${randomBytes(4).toString('hex')}`
  const driver = await LocalDriver.open({ rootfs, stateDir, cgroupParent })
  try {
    const bare = [
      '--unshare-all',
      '--ro-bind',
      rootfs,
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--die-with-parent',
      '/usr/bin/python3',
      '-c',
      'print(1)',
    ]
    await exec('bwrap', bare)
    const bareBwrap = median(await timeEach(COLD, () => exec('bwrap', bare)))
    const hostPython = median(
      await timeEach(COLD, () => exec('/usr/bin/python3', ['-c', 'print(1)'])),
    )

    const local = await measureDriver(driver)
    const dockerDir = mkdtempSync(join(tmpdir(), 'syntic-docker-bench-'))
    const docker = await DockerDriver.open({
      host: await ensurePodman(),
      group: `bench-${randomBytes(4).toString('hex')}`,
      stateDir: dockerDir,
    })
    let podman
    try {
      podman = await measureDriver(docker)
    } finally {
      await docker.close()
      for (const s of await docker.list()) await docker.destroy(s.id)
      rmSync(dockerDir, { recursive: true, force: true })
    }
    const driverRows = (label, m) => [
      {
        case: `${label} cold: create + first print(1)`,
        median_ms: ms(m.cold),
        target_ms: 150,
        ratio_to_bare_bwrap: ms(m.cold / bareBwrap),
      },
      {
        case: `${label} from the pool: acquire + print(1)`,
        median_ms: ms(m.pooled),
        target_ms: 30,
        ratio_to_bare_bwrap: ms(m.pooled / bareBwrap),
      },
      {
        case: `${label} second run overhead beyond the code`,
        median_ms: ms(m.secondRun),
        target_ms: 10,
      },
      {
        case: `${label} ${AT_ONCE} containers at once: each (median)`,
        median_ms: ms(median(m.each)),
        wall_ms: ms(m.burstWall),
      },
    ]
    const rows = [
      { case: 'host /usr/bin/python3 -c print(1)', median_ms: ms(hostPython) },
      { case: 'bare bwrap + image python3 -c print(1)', median_ms: ms(bareBwrap) },
      ...driverRows('local', local),
      ...driverRows('podman', podman),
    ]
    const { cold, pooled, secondRun, burstWall } = local
    return [
      {
        name: 'sandbox cold start',
        figure: `${ms(cold)} ms`,
        ratio: ms(cold / bareBwrap),
        target: '< 150 ms',
        pass: cold < 150,
        rows,
      },
      {
        name: 'sandbox from pool',
        figure: `${ms(pooled)} ms`,
        ratio: ms(pooled / bareBwrap),
        target: '< 30 ms',
        pass: pooled < 30,
      },
      {
        name: 'sandbox second run overhead',
        figure: `${ms(secondRun)} ms`,
        target: '< 10 ms',
        pass: secondRun < 10,
      },
      {
        name: `sandbox ${AT_ONCE} at once`,
        figure: `${ms(burstWall)} ms wall`,
        target: 'reported',
        pass: true,
      },
      {
        name: 'sandbox podman cold start',
        figure: `${ms(podman.cold)} ms`,
        ratio: ms(podman.cold / local.cold),
        target: 'reported (ratio to the local driver)',
        pass: true,
      },
      {
        name: 'sandbox podman from pool',
        figure: `${ms(podman.pooled)} ms`,
        target: '< 30 ms',
        pass: podman.pooled < 30,
      },
      {
        name: 'sandbox podman second run overhead',
        figure: `${ms(podman.secondRun)} ms`,
        target: '< 10 ms',
        pass: podman.secondRun < 10,
      },
      {
        name: `sandbox podman ${AT_ONCE} at once`,
        figure: `${ms(podman.burstWall)} ms wall`,
        ratio: ms(podman.burstWall / burstWall),
        target: 'reported (ratio to the local driver)',
        pass: true,
      },
    ]
  } finally {
    await driver.close()
    for (const c of ['cpu', 'memory', 'pids', 'freezer', '']) {
      try {
        rmdirSync(join('/sys/fs/cgroup', c, cgroupParent))
      } catch {
        // Not this layout.
      }
    }
    rmSync(stateDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const result of await run()) console.log(JSON.stringify(result))
}
