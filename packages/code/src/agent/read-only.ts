// What `plan` mode lets the shell run: commands that only read. The shell's classifier flags
// destructive commands; read-only is stricter, so a command must also pass an allow-list of
// programs that cannot write, with no redirection into files and no nested command text. Anything
// this reader is unsure of counts as a write: in plan mode a wrong "no" costs one retry, a wrong
// "yes" changes the project.
import { classifyCommand } from '@syntic/tools'

const READ_ONLY_PROGRAMS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'find',
  'fd',
  'tree',
  'pwd',
  'echo',
  'printf',
  'file',
  'stat',
  'du',
  'df',
  'which',
  'type',
  'whoami',
  'id',
  'date',
  'uname',
  'diff',
  'cmp',
  'sort',
  'uniq',
  'cut',
  'tr',
  'nl',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'test',
  '[',
  'true',
  'false',
  'jq',
  'column',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'cd',
])

const READ_ONLY_GIT = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'ls-files',
  'grep',
  'rev-parse',
  'describe',
  'shortlog',
])

// Options that make an otherwise reading program write or run something.
const WRITING_OPTIONS: Record<string, RegExp> = {
  find: /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output)/,
  rg: /^--pre$/,
}

// Redirections that write nowhere: into another stream or into /dev/null.
const HARMLESS_REDIRECT = /^(\d?>&\d|&?\d?>>?\/dev\/null)$/

export type ReadOnlyVerdict = { readOnly: true } | { readOnly: false; why: string }

/** Splits on unquoted whitespace and control operators; null when quoting is unbalanced. */
interface Word {
  text: string
  /** It holds an unquoted `>`: a redirection. */
  redirect: boolean
}

function segments(cmd: string): Word[][] | null {
  const result: Word[][] = [[]]
  let word = ''
  let inWord = false
  let redirect = false
  let quote: '"' | "'" | null = null
  const endWord = () => {
    if (inWord) result[result.length - 1]!.push({ text: word, redirect })
    word = ''
    inWord = false
    redirect = false
  }
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!
    if (quote !== null) {
      if (c === quote) quote = null
      else if (c === '\\' && quote === '"' && i + 1 < cmd.length) word += cmd[++i]
      else word += c
      continue
    }
    if (c === '"' || c === "'") {
      quote = c
      inWord = true
    } else if (c === '\\' && i + 1 < cmd.length) {
      word += cmd[++i]
      inWord = true
    } else if (c === ' ' || c === '\t') {
      endWord()
    } else if (c === '|' || c === ';' || c === '&' || c === '\n') {
      if (c === '&' && (word.endsWith('>') || cmd[i - 1] === '>')) {
        word += c
        inWord = true
        continue
      }
      endWord()
      if (result[result.length - 1]!.length > 0) result.push([])
    } else {
      if (c === '>') redirect = true
      word += c
      inWord = true
    }
  }
  if (quote !== null) return null
  endWord()
  return result.filter((words) => words.length > 0)
}

function checkWords(words: Word[]): string | null {
  let start = 0
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]!.text)) start++
  const program = words[start]?.text
  if (program === undefined) return null
  const name = program.slice(program.lastIndexOf('/') + 1)
  for (const word of words) {
    if (word.redirect && !HARMLESS_REDIRECT.test(word.text)) {
      return `it writes to a file (${word.text})`
    }
  }
  const args = words
    .slice(start + 1)
    .filter((word) => !(word.redirect && HARMLESS_REDIRECT.test(word.text)))
    .map((word) => word.text)
  if (name === 'git') {
    const sub = args.find((arg) => !arg.startsWith('-'))
    if (sub === undefined || !READ_ONLY_GIT.has(sub)) {
      return `git ${sub ?? ''} is not one of the read-only git commands (${[...READ_ONLY_GIT].join(', ')})`.replace(
        '  ',
        ' ',
      )
    }
    if (args.some((arg) => arg === '--output' || arg.startsWith('--output=')))
      return 'it writes to a file (--output)'
    return null
  }
  if (!READ_ONLY_PROGRAMS.has(name)) return `\`${name}\` is not on the list of read-only programs`
  const writing = WRITING_OPTIONS[name]
  const bad = writing === undefined ? undefined : args.find((arg) => writing.test(arg))
  if (bad !== undefined) return `\`${name} ${bad}\` can change files or run commands`
  return null
}

/** Decides whether `cmd` only reads, for plan mode; `why` says what made it a write. */
export function readOnlyVerdict(cmd: string, workspace: string): ReadOnlyVerdict {
  const reasons = classifyCommand(cmd, workspace)
  if (reasons.length > 0) return { readOnly: false, why: reasons.join('; ') }
  if (/`|\$\(|<\(|>\(/.test(cmd)) return { readOnly: false, why: 'it runs nested commands' }
  const parts = segments(cmd)
  if (parts === null) return { readOnly: false, why: 'its quoting is unbalanced' }
  if (parts.length === 0) return { readOnly: false, why: 'it is empty' }
  for (const words of parts) {
    const why = checkWords(words)
    if (why !== null) return { readOnly: false, why }
  }
  return { readOnly: true }
}

/** The programs plan mode allows, for the docs and the decline message. */
export function readOnlyPrograms(): string[] {
  return [...READ_ONLY_PROGRAMS].sort()
}
