// Every Mod API limit in one place, named after the spec's words. The terminal UI imports the
// slot sizes from here so the host and the screen agree on them.

/** `status`: one row at the bottom of the screen. */
export const STATUS_ROWS = 1
/** `band`: up to 3 rows across the screen, above the input line. */
export const BAND_MAX_ROWS = 3
/** `pane`: a titled panel of up to 12 rows. */
export const PANE_MAX_ROWS = 12
/** The pane sits on the right when the terminal is at least this wide, else at the bottom. */
export const PANE_SIDE_MIN_COLUMNS = 100
/** No row is longer than this; the screen cuts further to its width. */
export const ROW_MAX_CHARS = 500
/** The pane title is cut to this many characters. */
export const PANE_TITLE_MAX_CHARS = 60

/** A line longer than 64 KB is skipped whole and counted as a bad line. */
export const LINE_MAX_BYTES = 64 * 1024
/** More than this many bad lines in a session stops the mod. */
export const BAD_LINES_MAX = 20

/** `note.post`: the text is cut to this many characters. */
export const NOTE_MAX_CHARS = 500
/** `note.post`: at most this many notes per mod in any window of NOTE_WINDOW_MS. */
export const NOTES_PER_WINDOW = 5
export const NOTE_WINDOW_MS = 60_000
/** Only the newest this many waiting notes (from all mods) are kept when the screen lags. */
export const NOTES_WAITING_MAX = 50
/** Warnings waiting for the screen are bounded too, so a crash loop cannot grow memory. */
export const WARNINGS_WAITING_MAX = 50

/** After `bye`, a mod has this long to exit before its process group is killed. */
export const BYE_GRACE_MS = 500
/** Once a mod's process group is gone, what is left in its output pipe is read for this long. */
export const OUTPUT_DRAIN_MS = 100

/** Events waiting for a mod that does not read: beyond this the oldest waiting ones are dropped. */
export const EVENT_QUEUE_MAX = 256
/** Results waiting for a mod that does not read: beyond this the host stops reading its calls. */
export const OUTGOING_PAUSE_BYTES = 256 * 1024
/** Lines read from one mod per READ_WINDOW_MS before its pipe is paused until the next window. */
export const READ_BUDGET_LINES = 100
export const READ_WINDOW_MS = 50

/** Manifest file size bound: a manifest is a few hundred bytes. */
export const MANIFEST_MAX_BYTES = 64 * 1024
export const MOD_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/
export const DESCRIPTION_MAX_CHARS = 200
