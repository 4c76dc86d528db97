// The code execution tool as the model sees it.
import type { ChatFunctionTool } from '../chat/types.js'
import { CODE_EXECUTION_LANGUAGES, CODE_EXECUTION_TYPE } from './code-execution.js'

export interface CodeExecutionPrompt {
  /** Runs the model may still make in this request. */
  maxRuns: number
  /** Names of the files in `/mnt/input/` when the model starts. */
  inputFiles: readonly string[]
  runTimeoutSeconds: number
  /** Whether the organisation's egress allowlist gives the container any network. */
  network: boolean
  /** Whether pip reaches a package mirror (the server's `SYNTIC_PACKAGE_MIRROR_URL`). */
  packageMirror: boolean
}

function inputLine(files: readonly string[]): string {
  if (files.length === 0) return '/mnt/input/ holds no files for this request.'
  const shown = files.slice(0, 20).join(', ')
  const more = files.length > 20 ? ` and ${files.length - 20} more` : ''
  return `/mnt/input/ holds the user's files: ${shown}${more}.`
}

/**
 * `syntic_code_execution({ language, code })`: its description tells the model where files are,
 * what is installed, that state persists between runs, and the limits it works within.
 */
export function codeExecutionFunction(prompt: CodeExecutionPrompt): ChatFunctionTool {
  const pip = prompt.packageMirror
    ? 'pip install works through a package mirror.'
    : 'pip install does not work: use what is installed.'
  const network = `${prompt.network ? 'Network access is limited to an allowlist of hosts' : 'There is no network access'}; ${pip}`
  const description = [
    'Run Python 3 or Bash code in an isolated Linux container and read its exit code, stdout and stderr.',
    inputLine(prompt.inputFiles),
    'Files you write to /mnt/output/ are returned to the user as downloadable files; write charts and result files there.',
    'Installed: pandas, numpy, matplotlib (use a non-interactive backend and savefig), openpyxl, pypdf, and the usual command-line tools.',
    'Python runs share one interpreter, like notebook cells: variables and imports persist between runs; files persist too.',
    `Each run may take at most ${prompt.runTimeoutSeconds} seconds and is killed past that; output is capped, so print summaries rather than whole datasets.`,
    network,
    `You have ${prompt.maxRuns} ${prompt.maxRuns === 1 ? 'run' : 'runs'} in this request. If code fails, read the error and fix it.`,
  ].join(' ')
  return {
    type: 'function',
    function: {
      name: CODE_EXECUTION_TYPE,
      description,
      parameters: {
        type: 'object',
        properties: {
          language: {
            type: 'string',
            enum: [...CODE_EXECUTION_LANGUAGES],
            description: 'python for Python 3, bash for a shell script.',
          },
          code: { type: 'string', description: 'The code to run.' },
        },
        required: ['language', 'code'],
        additionalProperties: false,
      },
    },
  }
}
