import { type ParseEntry, parse } from 'shell-quote'

// Turns a command line into simple commands (argv plus the files it redirects output to), for
// the destructive-command classifier. `shell-quote` does the quoting and operator work; this
// module covers what it does not: newlines as separators, comments, here-documents, and command
// substitutions, whose bodies are handed back for a separate look.

export type Item =
  | { kind: 'command'; argv: string[]; writes: Redirect[]; pipeline: number }
  | { kind: 'open' }
  | { kind: 'close' }

/** An output redirection: the operator as written and the file it names. */
export interface Redirect {
  op: string
  target: string
}

export interface Prepared {
  /** The command line with newlines as `;`, no comments and no here-document bodies. */
  text: string
  /** Text run as commands elsewhere: `$(...)`, backticks, here-documents fed to a shell. */
  nested: string[]
}

const PLACEHOLDER = '$(…)'
// A line whose here-document is read by a shell, whose body therefore is commands, not data.
const FEEDS_SHELL = /(^|[\s|;&(])(\S*\/)?(ba|z|da|k|mk)?sh(\s|$|[;|&)<])/

/** Index just past the `)` that closes a `(` opened right before `start`, quotes respected. */
function closingParen(src: string, start: number): number {
  let depth = 1
  let quote = ''
  for (let j = start; j < src.length; j++) {
    const ch = src[j]
    if (quote === "'") {
      if (ch === "'") quote = ''
    } else if (ch === '\\') {
      j++
    } else if (quote === '"') {
      if (ch === '"') quote = ''
    } else if (ch === "'" || ch === '"') {
      quote = ch
    } else if (ch === '(') {
      depth++
    } else if (ch === ')') {
      depth--
      if (depth === 0) return j + 1
    }
  }
  return src.length
}

function closingBacktick(src: string, start: number): number {
  for (let j = start; j < src.length; j++) {
    if (src[j] === '\\') j++
    else if (src[j] === '`') return j
  }
  return src.length
}

function stripDescriptor(out: string): string {
  let start = out.length
  while (start > 0 && /\d/.test(out[start - 1]!)) start--
  if (start === out.length) return out
  return start === 0 || /[\s;&|(]/.test(out[start - 1]!) ? out.slice(0, start) : out
}

interface Heredoc {
  delimiter: string
  stripTabs: boolean
}

const HEREDOC_WORD = /^[ \t]*(\\?)(['"]?)([^\s'"\\;&|<>()]+)\2/

export function prepare(src: string): Prepared {
  const nested: string[] = []
  let out = ''
  let quote = ''
  let lineStart = 0
  const heredocs: Heredoc[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (quote === "'") {
      out += c
      if (c === "'") quote = ''
      i++
      continue
    }
    if (c === '\\') {
      // A backslash-newline joins lines; any other escape is kept for shell-quote.
      if (src[i + 1] !== '\n') out += src.slice(i, i + 2)
      i += 2
      continue
    }
    if (c === '$' && src[i + 1] === '(') {
      const end = closingParen(src, i + 2)
      // `$((...))` is arithmetic, not a command.
      if (src[i + 2] !== '(') nested.push(src.slice(i + 2, end - 1))
      out += quote === '"' ? PLACEHOLDER : `'${PLACEHOLDER}'`
      i = end
      continue
    }
    if (c === '`') {
      const end = closingBacktick(src, i + 1)
      nested.push(src.slice(i + 1, end).replaceAll('\\`', '`'))
      out += quote === '"' ? PLACEHOLDER : `'${PLACEHOLDER}'`
      i = end + 1
      continue
    }
    if (quote === '"') {
      out += c
      if (c === '"') quote = ''
      i++
      continue
    }
    if (c === "'" || c === '"') {
      quote = c
      out += c
      i++
      continue
    }
    if (c === '#') {
      const prev = i === 0 ? ' ' : src[i - 1]!
      if (/[\s;&|()<>]/.test(prev)) {
        while (i < src.length && src[i] !== '\n') i++
        continue
      }
      // shell-quote would start a comment mid-word (`a#b`); bash does not.
      out += '\\#'
      i++
      continue
    }
    if (c === '<' && src[i + 1] === '<' && src[i + 2] !== '<') {
      const stripTabs = src[i + 2] === '-'
      const from = i + (stripTabs ? 3 : 2)
      const word = HEREDOC_WORD.exec(src.slice(from))
      if (word) {
        heredocs.push({ delimiter: word[3]!, stripTabs })
        out += ` << ${word[3]} `
        i = from + word[0].length
        continue
      }
    }
    if (c === '>' || c === '<') {
      // `2>file`: the descriptor number is not an argument of the command. Only the end of
      // `out` is examined, so many redirections stay linear.
      out = stripDescriptor(out)
    }
    if (c === '\n') {
      out += ' ; '
      const line = src.slice(lineStart, i)
      i++
      for (const doc of heredocs) {
        const body: string[] = []
        while (i < src.length) {
          let nl = src.indexOf('\n', i)
          if (nl < 0) nl = src.length
          const bodyLine = src.slice(i, nl)
          i = nl + 1
          if ((doc.stripTabs ? bodyLine.replace(/^\t+/, '') : bodyLine) === doc.delimiter) break
          body.push(bodyLine)
        }
        if (FEEDS_SHELL.test(line)) nested.push(body.join('\n'))
      }
      heredocs.length = 0
      lineStart = i
      continue
    }
    out += c
    i++
  }
  return { text: out, nested }
}

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&'])
const READ_REDIRECTS = new Set(['<', '<<', '<<<'])
const OPENERS = new Set(['(', '<(', '>('])

function opOf(entry: ParseEntry): string | null {
  if (typeof entry === 'string') return null
  if ('op' in entry && entry.op !== 'glob') return entry.op
  return null
}

/** Splits prepared text into simple commands, with `open`/`close` for subshell boundaries. */
export function splitCommands(text: string): Item[] {
  // Variables stay as written (`$HOME`), so the classifier can reason about them.
  const entries = parse(text, (name: string) => `$${name}`) as ParseEntry[]
  const items: Item[] = []
  let pipeline = 0
  let argv: string[] = []
  let writes: Redirect[] = []
  let redirect: string | null = null

  const end = () => {
    if (argv.length > 0 || writes.length > 0) {
      items.push({ kind: 'command', argv, writes, pipeline })
    }
    argv = []
    writes = []
    redirect = null
  }

  for (const entry of entries) {
    let word: string | null = null
    if (typeof entry === 'string') word = entry
    else if ('pattern' in entry) word = entry.pattern
    else if ('comment' in entry) continue
    if (word !== null) {
      if (redirect === null) {
        argv.push(word)
      } else {
        // `>&2` duplicates a descriptor; only `>&file` names a file.
        if (WRITE_REDIRECTS.has(redirect) && !(redirect === '>&' && /^(\d+|-)$/.test(word))) {
          writes.push({ op: redirect, target: word })
        }
        redirect = null
      }
      continue
    }
    const op = opOf(entry)
    if (op === null) continue
    if (WRITE_REDIRECTS.has(op) || READ_REDIRECTS.has(op)) {
      redirect = op
    } else if (op === '|' || op === '|&') {
      end()
    } else if (OPENERS.has(op)) {
      end()
      pipeline++
      items.push({ kind: 'open' })
    } else if (op === ')') {
      end()
      pipeline++
      items.push({ kind: 'close' })
    } else {
      end()
      pipeline++
    }
  }
  end()
  return items
}
