// The fixed exchange every path of the gateway benchmark carries: the request the load generator
// sends, the completion and the stream the fast upstream answers with, and the checks that a
// response (direct or through a gateway) still holds that answer. Gateways may rewrite ids or add
// fields, so the checks compare the answer text and the stream's end, not the bytes.

export const UPSTREAM_API_KEY = 'sk-bench-upstream'
export const MODEL = 'bench-model-1'
export const ANSWER =
  'The bug is in parse_date: it reads the day before the month, so 03/04 becomes April 3rd. ' +
  'Swap the two fields and the tests pass.'

const CREATED = 1767225600
const ID = 'chatcmpl-bench0000000000000000000001'
const FINGERPRINT = 'fp_bench01'

export const COMPLETION_JSON = JSON.stringify({
  id: ID,
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: ANSWER, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 52,
    completion_tokens: 31,
    total_tokens: 83,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: FINGERPRINT,
})

/** The answer cut into `parts` pieces of whole words, as a model streams it. */
function splitAnswer(parts) {
  const words = ANSWER.split(/(?<= )/)
  const pieces = []
  for (let i = 0; i < parts; i++) {
    const from = Math.round((i * words.length) / parts)
    const to = Math.round(((i + 1) * words.length) / parts)
    pieces.push(words.slice(from, to).join(''))
  }
  return pieces
}

function chunk(delta, finishReason, usage) {
  const body = {
    id: ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  }
  if (usage) body.usage = usage
  return `data: ${JSON.stringify(body)}\n\n`
}

const STREAM_USAGE = { prompt_tokens: 52, completion_tokens: 31, total_tokens: 83 }

/** The SSE events of the streamed answer: a role chunk, 18 text chunks, a finish chunk. */
const STREAM_EVENTS = [
  chunk({ role: 'assistant', content: '', refusal: null }, null),
  ...splitAnswer(18).map((content) => chunk({ content }, null)),
  chunk({}, 'stop'),
]

export const STREAM_WITH_USAGE = [
  ...STREAM_EVENTS,
  chunk(null, null, STREAM_USAGE),
  'data: [DONE]\n\n',
]
export const STREAM_WITHOUT_USAGE = [...STREAM_EVENTS, 'data: [DONE]\n\n']

/** The request body the load generator sends; usage is asked for so every path streams it. */
export function requestBody(stream) {
  return JSON.stringify({
    model: MODEL,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    messages: [
      { role: 'system', content: 'You are a careful assistant that fixes failing tests.' },
      { role: 'user', content: 'The tests in tests/test_dates.py fail. Why?' },
    ],
  })
}

/** True when `text` is a chat completion whose answer is ANSWER. */
export function isExpectedCompletion(text) {
  try {
    return JSON.parse(text).choices?.[0]?.message?.content === ANSWER
  } catch {
    return false
  }
}

/** True when `text` is an SSE stream whose deltas spell ANSWER and which ends with [DONE]. */
export function isExpectedStream(text) {
  let answer = ''
  let done = false
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue
    const data = line.slice(5).trim()
    if (done) return false
    if (data === '[DONE]') {
      done = true
      continue
    }
    try {
      answer += JSON.parse(data).choices?.[0]?.delta?.content ?? ''
    } catch {
      return false
    }
  }
  return done && answer === ANSWER
}
