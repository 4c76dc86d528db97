import type { CapturedOutput, RunResult } from '@syntic/sandbox'
import type { FileRecord } from '../../store/port.js'

/** Characters of each output stream the model reads: the head and the tail around a marker. */
export const MODEL_OUTPUT_CHARS = 20_000

function clip(output: CapturedOutput): string {
  const text = output.text
  if (text.length <= MODEL_OUTPUT_CHARS) {
    return output.truncated ? `${text}\n[output truncated: ${output.bytes} bytes in all]` : text
  }
  const half = MODEL_OUTPUT_CHARS / 2
  return `${text.slice(0, half)}\n[... ${output.bytes} bytes in all, middle omitted ...]\n${text.slice(-half)}`
}

/** What the model reads after a run: how it ended, its output, the files it wrote, runs left. */
export function runResultText(
  result: RunResult,
  files: { created: readonly FileRecord[]; skipped: readonly string[] },
  runsLeft: number,
  timeoutSeconds: number,
): string {
  const lines: string[] = []
  if (result.timedOut) {
    lines.push(
      `The run timed out after ${timeoutSeconds} seconds and was killed with everything it started (exit code ${result.exitCode}).`,
    )
  } else {
    lines.push(`exit code: ${result.exitCode}`)
  }
  if (result.kernelRestarted) {
    lines.push(
      'The Python interpreter was restarted: variables and imports from earlier runs are gone; files remain.',
    )
  }
  lines.push(`stdout:\n${result.stdout.text === '' ? '(empty)' : clip(result.stdout)}`)
  if (result.stderr.text !== '') lines.push(`stderr:\n${clip(result.stderr)}`)
  if (files.created.length > 0) {
    const list = files.created.map((f) => `${f.filename} (${f.bytes} bytes)`).join(', ')
    lines.push(`New files in /mnt/output/, returned to the user: ${list}`)
  }
  for (const skipped of files.skipped) lines.push(`Not returned: ${skipped}`)
  lines.push(`Runs left in this request: ${runsLeft}`)
  return lines.join('\n')
}
