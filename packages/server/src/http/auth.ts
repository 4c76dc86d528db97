import type { IncomingHttpHeaders } from 'node:http'
import { ApiError } from '../errors.js'
import type { Principal, Store } from '../store/port.js'

// Real keys are well under this; longer values are refused before they cost a hash.
const MAX_KEY_CHARS = 256

const MISSING = new ApiError(
  401,
  'authentication_error',
  'missing_api_key',
  'No API key: send Authorization: Bearer sk_live_... (or x-api-key: sk_live_...)',
)

function invalid(detail: string): ApiError {
  return new ApiError(401, 'authentication_error', 'invalid_api_key', detail)
}

const INVALID = invalid(
  'The API key is not valid: it is unknown or was revoked. Create one with `syntic keys create`.',
)

/**
 * The key a request carries: `Authorization: Bearer <key>` (the OpenAI SDKs) or `x-api-key`
 * (the Anthropic SDKs). Throws ApiError when there is none or the header is malformed.
 */
export function apiKeyOf(headers: IncomingHttpHeaders): string {
  const authorization = headers.authorization
  if (authorization !== undefined && authorization !== '') {
    const space = authorization.indexOf(' ')
    const scheme = space === -1 ? authorization : authorization.slice(0, space)
    if (scheme.toLowerCase() !== 'bearer') {
      throw invalid('The Authorization header must be "Bearer sk_live_..."')
    }
    return checked(space === -1 ? '' : authorization.slice(space + 1).trim())
  }
  const header = headers['x-api-key']
  const xApiKey = Array.isArray(header) ? header[0] : header
  if (xApiKey !== undefined && xApiKey !== '') return checked(xApiKey.trim())
  throw MISSING
}

function checked(key: string): string {
  if (key === '') throw MISSING
  if (key.length > MAX_KEY_CHARS) throw INVALID
  return key
}

/** The principal behind the request's key; looked up on every request so revocation is instant. */
export async function authenticate(store: Store, headers: IncomingHttpHeaders): Promise<Principal> {
  const principal = await store.authenticate(apiKeyOf(headers))
  if (principal === null) throw INVALID
  return principal
}
