// Paints frames and forwards keys. All layout is done before this point: each row arrives cut and
// padded to the terminal's width, so ink only has to draw styled text.
import { Box, Text, useInput } from 'ink'
import { useEffect, useState } from 'react'
import type { KeyPress } from './controller.js'
import type { Row, Tone } from './rows.js'

interface ToneStyle {
  color?: string
  dimColor?: boolean
  bold?: boolean
  inverse?: boolean
}

const TONE_STYLE: Record<Tone, ToneStyle> = {
  plain: {},
  user: { color: 'cyan', bold: true },
  dim: { dimColor: true },
  note: { color: 'magenta' },
  warning: { color: 'yellow' },
  error: { color: 'red' },
  ok: { color: 'green' },
  accent: { color: 'blue', bold: true },
  title: { inverse: true, bold: true },
  cursor: { inverse: true },
  prompt: { color: 'yellow', bold: true },
}

export interface FrameProps {
  /** Called once with the setter the controller paints through. */
  connect: (paint: (rows: Row[]) => void) => void
  onKey: (input: string, key: KeyPress) => void
}

export function Frame({ connect, onKey }: FrameProps) {
  const [rows, setRows] = useState<Row[]>([])
  useEffect(() => connect(setRows), [connect])
  useInput(onKey)
  return (
    <Box flexDirection="column">
      {rows.map((row, y) => (
        // Rows are positions on the screen, not items: the index is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={y} wrap="truncate-end">
          {row.map((segment, x) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments are positions within the row
            <Text key={x} {...TONE_STYLE[segment.tone]}>
              {segment.text}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  )
}
