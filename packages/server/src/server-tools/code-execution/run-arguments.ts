import { CODE_EXECUTION_LANGUAGES, type CodeExecutionLanguage } from '@syntic/protocol'
import { MAX_CODE_BYTES } from '@syntic/sandbox'

export type RunArguments =
  | { ok: true; language: CodeExecutionLanguage; code: string }
  | { ok: false; error: string; language?: CodeExecutionLanguage; code?: string }

/** The model's `{language, code}` arguments; anything else is an error text it can act on. */
export function parseRunArguments(text: string): RunArguments {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {
      ok: false,
      error: 'Error: the arguments are not JSON; send {"language": "python", "code": "..."}.',
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      error: 'Error: the arguments must be a JSON object with language and code.',
    }
  }
  const { language, code } = parsed as { language?: unknown; code?: unknown }
  const known = CODE_EXECUTION_LANGUAGES.find((l) => l === language)
  const partial = {
    ...(known ? { language: known } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  }
  if (known === undefined) {
    return { ok: false, error: 'Error: language must be "python" or "bash".', ...partial }
  }
  if (typeof code !== 'string' || code.trim() === '') {
    return { ok: false, error: 'Error: code must be a non-empty string.', ...partial }
  }
  if (Buffer.byteLength(code) > MAX_CODE_BYTES) {
    return {
      ok: false,
      error: `Error: the code is longer than ${MAX_CODE_BYTES} bytes; write data to files instead of inlining it.`,
      ...partial,
    }
  }
  return { ok: true, language: known, code }
}
