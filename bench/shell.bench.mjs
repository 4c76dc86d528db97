// Round-trip cost of a command in the persistent shell session against spawning a fresh
// `bash -c` per call, the approach a naive client would take. Run directly to print JSON.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ShellTool } from '../packages/tools/dist/shell/index.js'

const N = 300
const WARMUP = 30
const TARGET = 3

function spawnBash() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))))
  })
}

async function measure(call) {
  for (let i = 0; i < WARMUP; i++) await call()
  const times = []
  for (let i = 0; i < N; i++) {
    const start = process.hrtime.bigint()
    await call()
    times.push(Number(process.hrtime.bigint() - start) / 1000)
  }
  times.sort((a, b) => a - b)
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length
  const median = (times[(N - 1) >> 1] + times[N >> 1]) / 2
  return { mean_us: Math.round(mean), median_us: Math.round(median) }
}

async function sessionCall(tool) {
  const result = await tool.run({ command: 'run', cmd: 'true' })
  if (result.is_error || result.output !== '[exit code: 0]') {
    throw new Error(`unexpected result: ${result.output}`)
  }
}

export async function run() {
  const ws = mkdtempSync(join(tmpdir(), 'syntic-shell-bench-'))
  const sandboxed = new ShellTool({ cwd: ws })
  const unsandboxed = new ShellTool({ cwd: ws, sandbox: false })
  try {
    const session = await measure(() => sessionCall(sandboxed))
    const sessionNoSandbox = await measure(() => sessionCall(unsandboxed))
    const perCall = await measure(spawnBash)
    const ratio = Number((perCall.mean_us / session.mean_us).toFixed(2))
    const ratioMedian = Number((perCall.median_us / session.median_us).toFixed(2))
    return {
      name: 'shell round trip',
      rows: [
        { method: 'persistent session, sandboxed (default)', calls: N, ...session },
        { method: 'persistent session, no sandbox', calls: N, ...sessionNoSandbox },
        { method: 'spawn `bash -c true` per call', calls: N, ...perCall },
      ],
      // Spawn time over sandboxed-session time, by mean (the figure judged) and by median.
      ratio,
      ratio_median: ratioMedian,
      target: TARGET,
      pass: ratio >= TARGET,
    }
  } finally {
    await sandboxed.close()
    await unsandboxed.close()
    rmSync(ws, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run(), null, 2))
}
