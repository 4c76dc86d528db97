// What a gateway adds to a chat completion: the same local scripted upstream called directly,
// through the Syntic server and through Portkey's open-source gateway (the peer), non-streaming and
// streaming, one request at a time and 64 at once. A bare pass-through proxy runs beside them as
// the floor: what one more Node hop costs on this machine before a gateway does any work.
// Every path runs as child processes of this one; the paths take turns in a rotating order, so
// drift on a small VM favours none of them.
// Run directly to print JSON; `npm run bench -- gateway` prints it with the table.
import { cpus } from 'node:os'
import { pathToFileURL } from 'node:url'
import { loadTest } from './support/concurrent.mjs'
import { connect, timeSequential } from './support/sequential.mjs'
import { startBareProxy, startPortkey, startSyntic, startUpstream } from './support/services.mjs'
import { median, quantile, round } from './support/stats.mjs'

const SEQUENTIAL = {
  nonStreaming: { warmup: 300, count: 2000 },
  // Portkey holds back the first chunk of every stream, so fewer streamed requests fit the time.
  streaming: { warmup: 100, count: 600 },
  rounds: 8,
}
const CONCURRENT = { connections: 64, seconds: 3, warmupSeconds: 1, repeats: 3 }
const ADDED_LIMIT_MS = 0.3
const ADDED_SHARE_OF_PORTKEY = 1 / 5
const THROUGHPUT_RATIO = 3
// A fixed `setTimeout(25)` before the first chunk in Portkey 1.15.2's Node stream handler.
const PORTKEY_FIRST_CHUNK_PAUSE_MS = 25

const kind = (stream) => (stream ? 'streaming' : 'non-streaming')

/** `targets` rotated left by `by`: round n starts with a different path. */
function rotate(targets, by) {
  const at = by % targets.length
  return [...targets.slice(at), ...targets.slice(0, at)]
}

function machine() {
  const all = cpus()
  return `${all.length} cores (${all[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}.`
}

const sentences = (parts) => parts.filter(Boolean).join(' ')

async function oneAtATime(targets, stream, missing) {
  const { warmup, count } = stream ? SEQUENTIAL.streaming : SEQUENTIAL.nonStreaming
  const perRound = Math.ceil(count / SEQUENTIAL.rounds)
  const clients = new Map(targets.map((t) => [t.name, connect(t)]))
  const samples = new Map(targets.map((t) => [t.name, { latencies: [], errors: 0 }]))
  const collect = (target, run) => {
    const sample = samples.get(target.name)
    sample.latencies.push(...run.latencies)
    sample.errors += run.errors
    sample.firstError ??= run.firstError
  }
  try {
    for (const target of targets) {
      collect(target, await timeSequential(clients.get(target.name), target, stream, warmup))
    }
    for (const sample of samples.values()) sample.latencies.length = 0
    for (let round = 0; round < SEQUENTIAL.rounds; round++) {
      for (const target of rotate(targets, round)) {
        collect(target, await timeSequential(clients.get(target.name), target, stream, perRound))
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()))
  }

  const directMedian = median(samples.get('direct').latencies)
  const added = {}
  const rows = targets.map((target) => {
    const { latencies, errors, firstError } = samples.get(target.name)
    const mid = median(latencies)
    added[target.name] = round(mid - directMedian)
    return {
      path: target.label,
      requests: latencies.length,
      median_ms: round(mid),
      p99_ms: round(quantile(latencies, 0.99)),
      added_median_ms: added[target.name],
      errors,
      ok: errors === 0,
      ...(firstError ? { first_error: firstError } : {}),
    }
  })
  const measured = added.syntic !== undefined
  const ratio = measured ? round(added.syntic / added.portkey) : null
  return {
    name: `gateway added latency, ${kind(stream)}, one at a time`,
    rows,
    ratio,
    target:
      `syntic adds < ${ADDED_LIMIT_MS} ms at the median and < 1/5 of what Portkey adds ` +
      `(ratio = syntic added / portkey added < ${ADDED_SHARE_OF_PORTKEY})`,
    pass:
      rows.every((row) => row.ok) &&
      measured &&
      added.syntic < ADDED_LIMIT_MS &&
      ratio < ADDED_SHARE_OF_PORTKEY,
    notes: sentences([
      `${count} requests per path after ${warmup} warm-up, one at a time over one keep-alive ` +
        `connection, in ${SEQUENTIAL.rounds} rounds of rotating order; latency to the last byte.`,
      `Added at the median: syntic ${added.syntic ?? '-'} ms, portkey ${added.portkey} ms, ` +
        `the bare proxy ${added.floor} ms (the cost of the hop itself).`,
      stream
        ? `Portkey waits ${PORTKEY_FIRST_CHUNK_PAUSE_MS} ms before relaying a stream's first ` +
          `chunk; without that pause it would add ${round(added.portkey - PORTKEY_FIRST_CHUNK_PAUSE_MS)} ms. ` +
          'Its process preloads support/portkey-mutable-headers.mjs, without which every ' +
          'Portkey stream fails here (Portkey-AI/gateway#1389).'
        : null,
      missing,
      machine(),
    ]),
  }
}

async function manyAtOnce(targets, stream, missing) {
  const runs = new Map(targets.map((t) => [t.name, []]))
  for (let repeat = 0; repeat < CONCURRENT.repeats; repeat++) {
    for (const target of rotate(targets, repeat)) {
      runs.get(target.name).push(await loadTest(target, stream, CONCURRENT))
    }
  }
  const rps = {}
  const rows = targets.map((target) => {
    const list = runs.get(target.name)
    const errors = list.reduce((sum, run) => sum + run.errors, 0)
    rps[target.name] = Math.round(median(list.map((run) => run.rps)))
    return {
      path: target.label,
      connections: CONCURRENT.connections,
      rps: rps[target.name],
      p50_ms: median(list.map((run) => run.p50_ms)),
      p90_ms: median(list.map((run) => run.p90_ms)),
      p99_ms: median(list.map((run) => run.p99_ms)),
      rps_runs: list.map((run) => Math.round(run.rps)),
      errors,
      ok: errors === 0,
    }
  })
  const ratio = rps.syntic === undefined ? null : round(rps.syntic / rps.portkey, 2)
  return {
    name: `gateway throughput, ${kind(stream)}, ${CONCURRENT.connections} concurrent`,
    rows,
    ratio,
    target:
      `syntic requests/s >= ${THROUGHPUT_RATIO}x Portkey's ` +
      `(ratio = syntic rps / portkey rps >= ${THROUGHPUT_RATIO})`,
    pass: rows.every((row) => row.ok) && ratio !== null && ratio >= THROUGHPUT_RATIO,
    notes: sentences([
      `autocannon, ${CONCURRENT.connections} connections, ${CONCURRENT.warmupSeconds} s warm-up ` +
        `then ${CONCURRENT.seconds} s, ${CONCURRENT.repeats} repeats in rotating order; ` +
        'medians of the repeats; only correct answers count.',
      'The load generator, the gateway and the upstream share the two cores.',
      rps.syntic === undefined
        ? null
        : `Syntic reaches ${round((100 * rps.syntic) / rps.floor, 0)}% of the bare proxy's rate.`,
      missing,
      machine(),
    ]),
  }
}

export async function run() {
  const started = []
  try {
    const upstream = await startUpstream()
    started.push(upstream)
    started.push(await startBareProxy(upstream))
    let missing
    try {
      started.push(await startSyntic(upstream))
    } catch (error) {
      missing = `Syntic server not available, so not measured: ${error.message.split('\n')[0]}`
    }
    started.push(await startPortkey(upstream))
    const results = []
    for (const stream of [false, true]) results.push(await oneAtATime(started, stream, missing))
    for (const stream of [false, true]) results.push(await manyAtOnce(started, stream, missing))
    return results
  } finally {
    await Promise.all(started.map((service) => service.stop()))
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2))
}
