// The mods' screen areas: the status row, the band and the pane, each bounded and cut to fit.
import type { SlotContent } from '../mods/host-port.js'
import type { PermissionMode } from '../session/types.js'
import { fitRow, type Row } from './rows.js'
import {
  BAND_MAX_ROWS,
  PANE_BOTTOM_MAX_SHARE,
  PANE_MAX_ROWS,
  PANE_SIDE_MAX_WIDTH,
  PANE_SIDE_MIN_COLUMNS,
  PANE_SIDE_MIN_WIDTH,
  STATUS_ITEM_MAX_WIDTH,
} from './screen-limits.js'
import { fitWidth } from './text-width.js'

const STATUS_SEPARATOR = ' │ '

/** The bottom row: the permission mode, then each mod's status in start order, cut to fit. */
export function statusRow(
  mode: PermissionMode,
  statuses: readonly SlotContent[],
  width: number,
): Row {
  const row: Row = [{ text: ` mode: ${mode} `, tone: 'accent' }]
  for (const status of statuses) {
    const text = fitWidth(status.lines[0] ?? '', STATUS_ITEM_MAX_WIDTH)
    if (text === '') continue
    row.push({ text: STATUS_SEPARATOR, tone: 'dim' }, { text, tone: 'plain' })
  }
  return fitRow(row, width)
}

/** The band: every mod's rows stacked in start order, at most `BAND_MAX_ROWS` in all. */
export function bandRows(bands: readonly SlotContent[], width: number): Row[] {
  const rows: Row[] = []
  for (const band of bands) {
    for (const text of band.lines) {
      if (rows.length === BAND_MAX_ROWS) return rows
      rows.push(fitRow([{ text, tone: 'plain' }], width))
    }
  }
  return rows
}

export type PanePlacement = 'right' | 'bottom'

export function panePlacement(columns: number): PanePlacement {
  return columns >= PANE_SIDE_MIN_COLUMNS ? 'right' : 'bottom'
}

/** The right pane's width, separator excluded. */
export function sidePaneWidth(columns: number): number {
  return Math.min(PANE_SIDE_MAX_WIDTH, Math.max(PANE_SIDE_MIN_WIDTH, Math.floor(columns / 3)))
}

/** Most rows a bottom pane may take, title row included. */
export function bottomPaneMaxRows(rows: number): number {
  return Math.max(2, Math.min(PANE_MAX_ROWS + 1, Math.floor(rows * PANE_BOTTOM_MAX_SHARE)))
}

/**
 * The pane: one mod's pane at a time, as tabs in start order. The title row names every pane
 * (the shown one marked) and the content rows follow, at most `PANE_MAX_ROWS` and `maxRows - 1`.
 */
export function paneRows(
  panes: readonly SlotContent[],
  active: number,
  width: number,
  maxRows: number,
): Row[] {
  if (panes.length === 0 || maxRows <= 0 || width <= 0) return []
  const shown = panes[clampTab(active, panes.length)]!
  const title: Row = []
  panes.forEach((pane, index) => {
    const name = pane.title ?? pane.mod
    if (index > 0) title.push({ text: ' ', tone: 'plain' })
    title.push({ text: ` ${name} `, tone: pane === shown ? 'title' : 'dim' })
  })
  if (panes.length > 1) title.push({ text: '  Tab: next', tone: 'dim' })
  const content = shown.lines.slice(0, Math.min(PANE_MAX_ROWS, maxRows - 1))
  const rows = content.map((text) => fitRow([{ text: ` ${text}`, tone: 'plain' }], width))
  return [fitRow(title, width), ...rows]
}

export function clampTab(active: number, count: number): number {
  if (count === 0) return 0
  return ((active % count) + count) % count
}
