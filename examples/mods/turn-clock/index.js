// @ts-check
// turn-clock: the running turn's elapsed time in the status line, recent turn durations in the
// pane, and a note when a turn took over a minute.
import { createMod } from '@syntic/mod-sdk'

const RECENT = 8
const SLOW_TURN_MS = 60_000

/** @param {number} ms */
function duration(ms) {
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
}

/** @type {{ turn: number, ms: number }[]} */
const recent = []
/** @type {{ turn: number, since: number } | undefined} */
let running
/** @type {NodeJS.Timeout | undefined} */
let ticker

const mod = createMod({
  onHello() {
    mod.draw('status', 'turn-clock: idle')
  },
  onBye() {
    clearInterval(ticker)
  },
})

function drawRunning() {
  if (!running) return
  mod.draw('status', `turn ${running.turn}: ${duration(Date.now() - running.since)}`)
}

mod.onEvent('turn.start', ({ turn }) => {
  running = { turn, since: Date.now() }
  drawRunning()
  clearInterval(ticker)
  ticker = setInterval(drawRunning, 1000)
})

mod.onEvent('turn.end', ({ turn, duration_ms }) => {
  running = undefined
  clearInterval(ticker)
  recent.unshift({ turn, ms: duration_ms })
  recent.length = Math.min(recent.length, RECENT)
  mod.draw('status', `last turn: ${duration(duration_ms)}`)
  mod.draw('pane', {
    title: 'recent turns',
    lines: recent.map((r) => `turn ${String(r.turn).padStart(3)}  ${duration(r.ms).padStart(7)}`),
  })
  if (duration_ms > SLOW_TURN_MS && mod.granted('notes')) {
    mod.note(`turn ${turn} took ${duration(duration_ms)}`).catch(() => {})
  }
})
