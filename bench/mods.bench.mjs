// The mod host under load. (1) Event delivery to 20 mods: the time `emit` takes to put the event
// into all 20 mods' pipes (the host's part, the target), and, for context, the round trip until
// each mod's answering draw reaches the host, against a bare pipe echo through the same Python
// processes with no host in between (on a loaded machine this is mostly the mods' scheduling). (2) Host CPU while mods flood: bad lines, notes, refused calls and
// draws, against the same host idle. Run directly to print JSON.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ModHost } from '../packages/code/dist/mods/host.js'

const MODS = 20
const EVENTS = 300
const WARMUP = 20
const GAP_MS = 5
const FLOOD_MS = 3000
const P99_TARGET_MS = 5
const CPU_TARGET_PERCENT = 10

const ECHO_MOD = `
import json, sys
while True:
    line = sys.stdin.readline()
    if not line:
        break
    m = json.loads(line)
    if m.get("type") == "event":
        sys.stdout.write(json.dumps({"type": "draw", "slot": "status", "text": str(m["data"]["turn"])}) + "\\n")
        sys.stdout.flush()
    elif m.get("type") == "bye":
        break
`
const BARE_ECHO = `
import sys
while True:
    line = sys.stdin.readline()
    if not line:
        break
    sys.stdout.write(line)
    sys.stdout.flush()
`
const flood = (line) => `
import sys
sys.stdin.readline()
chunk = (${JSON.stringify(line)} + "\\n") * 200
while True:
    sys.stdout.write(chunk)
    sys.stdout.flush()
`
const FLOODS = {
  'flood-bad': flood('this is not json'),
  'flood-notes': flood('{"type":"call","id":1,"method":"note.post","params":{"text":"spam"}}'),
  'flood-refused': flood('{"type":"call","id":1,"method":"note.post","params":{"text":""}}'),
  'flood-draws': flood('{"type":"draw","slot":"status","text":"again"}'),
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms))

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

function writeMod(home, name, script, manifest) {
  const dir = join(home, '.syntic', 'mods', name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'mod.py'), script)
  writeFileSync(
    join(dir, 'mod.json'),
    JSON.stringify({ name, run: ['python3', 'mod.py'], ...manifest }),
  )
}

async function hostDelivery(root) {
  const home = join(root, 'delivery')
  for (let i = 0; i < MODS; i++) {
    writeMod(home, `echo-${i}`, ECHO_MOD, { events: ['turn.start'], ui: ['status'] })
  }
  const sentAt = new Map()
  const samples = []
  const written = []
  const host = new ModHost({
    projectDir: root,
    homeDir: home,
    grantPrompt: async (_m, wanted) => wanted,
    trace: (_mod, entry) => {
      if (entry.kind !== 'draw') return
      const turn = Number(entry.content?.lines[0])
      if (turn > WARMUP) samples.push(performance.now() - sentAt.get(turn))
    },
  })
  await host.start()
  await sleep(500)
  for (let turn = 1; turn <= EVENTS + WARMUP; turn++) {
    const at = performance.now()
    sentAt.set(turn, at)
    host.emit({ event: 'turn.start', data: { turn } })
    if (turn > WARMUP) written.push(performance.now() - at)
    await sleep(GAP_MS)
  }
  await sleep(300)
  await host.stop()
  return { samples, written }
}

async function bareDelivery(root) {
  const file = join(root, 'bare.py')
  writeFileSync(file, BARE_ECHO)
  const children = Array.from({ length: MODS }, () =>
    spawn('python3', [file], { stdio: ['pipe', 'pipe', 'ignore'] }),
  )
  const sentAt = new Map()
  const samples = []
  for (const child of children) {
    let buffer = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      buffer += chunk
      let nl = buffer.indexOf('\n')
      while (nl !== -1) {
        const turn = Number(JSON.parse(buffer.slice(0, nl)).turn)
        buffer = buffer.slice(nl + 1)
        if (turn > WARMUP) samples.push(performance.now() - sentAt.get(turn))
        nl = buffer.indexOf('\n')
      }
    })
  }
  await sleep(500)
  for (let turn = 1; turn <= EVENTS + WARMUP; turn++) {
    sentAt.set(turn, performance.now())
    const line = `${JSON.stringify({ turn })}\n`
    for (const child of children) child.stdin.write(line)
    await sleep(GAP_MS)
  }
  await sleep(300)
  for (const child of children) child.kill('SIGKILL')
  return samples
}

async function cpuPercent(run) {
  const start = process.cpuUsage()
  const wall = performance.now()
  await run()
  const used = process.cpuUsage(start)
  return ((used.user + used.system) / 1000 / (performance.now() - wall)) * 100
}

async function floodCpu(root, names) {
  const home = join(root, `flood-${names.length}`)
  for (const name of names) {
    writeMod(home, name, FLOODS[name], { ui: ['status'], permissions: ['notes'] })
  }
  let notes = 0
  const host = new ModHost({ projectDir: root, homeDir: home, grantPrompt: async (_m, w) => w })
  await host.start()
  const cpu = await cpuPercent(async () => {
    const until = performance.now() + FLOOD_MS
    while (performance.now() < until) {
      await sleep(16)
      notes += host.tick({
        session_id: 's',
        model: 'm',
        permission_mode: 'default',
        turns: 0,
        busy: false,
        cwd: root,
      }).lines.length
    }
  })
  const running = host.running()
  await host.stop()
  const idle = await cpuPercent(() => sleep(FLOOD_MS / 3))
  return { cpu, idle, running, notes }
}

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'syntic-mods-bench-'))
  try {
    const { samples: host, written } = await hostDelivery(root)
    const bare = await bareDelivery(root)
    const writtenP99 = percentile(written, 99)
    const hostP99 = percentile(host, 99)
    const bareP99 = percentile(bare, 99)
    // The case: one mod floods bad lines, another floods notes. Then a harsher one.
    const flood = await floodCpu(root, ['flood-bad', 'flood-notes'])
    const harsh = await floodCpu(root, Object.keys(FLOODS))
    const round = (x) => Number(x.toFixed(2))
    return [
      {
        name: 'mod event delivery p99, 20 mods (ms)',
        rows: [
          {
            method: 'host: emit -> written to all 20 pipes',
            samples: written.length,
            p50_ms: round(percentile(written, 50)),
            p99_ms: round(writtenP99),
          },
          {
            method: 'round trip: emit -> mod -> draw back',
            samples: host.length,
            p50_ms: round(percentile(host, 50)),
            p99_ms: round(hostP99),
          },
          {
            method: 'bare pipe echo, no host',
            samples: bare.length,
            p50_ms: round(percentile(bare, 50)),
            p99_ms: round(bareP99),
          },
        ],
        figure: round(writtenP99),
        // Round-trip p99 over bare-pipe p99: what the host adds to the whole round trip.
        ratio: round(hostP99 / bareP99),
        target: `p99 < ${P99_TARGET_MS} ms`,
        pass: writtenP99 < P99_TARGET_MS && host.length === EVENTS * MODS,
      },
      {
        name: 'host CPU while mods flood (% of a core)',
        rows: [
          {
            method: 'flooding: bad lines, notes',
            cpu_percent: round(flood.cpu),
            still_running: flood.running.join(' '),
            notes_shown: flood.notes,
          },
          {
            method: 'flooding: bad lines, notes, refused calls, draws (no target)',
            cpu_percent: round(harsh.cpu),
            still_running: harsh.running.join(' '),
            notes_shown: harsh.notes,
          },
          { method: 'idle host, same process', cpu_percent: round(flood.idle) },
        ],
        figure: round(flood.cpu),
        target: `< ${CPU_TARGET_PERCENT}% of a core`,
        pass: flood.cpu < CPU_TARGET_PERCENT && !flood.running.includes('flood-bad'),
      },
    ]
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run(), null, 2))
}
