// The screen areas' bounds. The slot sizes are the mod host's (`mods/limits.ts`), so the host and
// the screen agree: the band's rows from all mods together, the pane's content rows (its title row
// is extra), and the width from which the pane sits on the right. The rest are the screen's own.
export { BAND_MAX_ROWS, PANE_MAX_ROWS, PANE_SIDE_MIN_COLUMNS } from '../mods/limits.js'

/** The right pane's width: a third of the terminal, within these bounds. */
export const PANE_SIDE_MIN_WIDTH = 30
export const PANE_SIDE_MAX_WIDTH = 48
/** At the bottom the pane takes at most this share of the rows (title included). */
export const PANE_BOTTOM_MAX_SHARE = 1 / 3
/** One mod's text in the status row, before the row itself is cut to the terminal's width. */
export const STATUS_ITEM_MAX_WIDTH = 40
/** The screen tick: how often the session is ticked and the frame recomposed. */
export const SCREEN_TICK_MS = 100
/** Two Ctrl+C within this window exit. */
export const DOUBLE_CTRL_C_MS = 1500
