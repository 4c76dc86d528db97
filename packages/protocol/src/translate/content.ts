// Content pieces both translation directions share: images, cache markers, joined text.
import type { ChatPromptCacheBreakpoint } from '../chat/types.js'
import type {
  MessagesCacheControl,
  MessagesImageMediaType,
  MessagesImageSource,
} from '../messages/types.js'

/**
 * A chat image URL as a messages image source: a base64 `data:` URL becomes a base64 source, any
 * other URL a url source. Parsed with indexOf rather than a regex, so a huge hostile URL costs one
 * linear scan.
 */
export function imageSourceFromUrl(url: string): MessagesImageSource {
  if (url.slice(0, 5).toLowerCase() === 'data:') {
    const comma = url.indexOf(',')
    const header = comma < 0 ? [] : url.slice(5, comma).split(';')
    if (header.slice(1).some((p) => p.toLowerCase() === 'base64')) {
      return {
        type: 'base64',
        // The upstream judges media types it does not take; the translation keeps what came.
        media_type: (header[0] ?? '').toLowerCase() as MessagesImageMediaType,
        data: url.slice(comma + 1),
      }
    }
  }
  return { type: 'url', url }
}

/** A messages image source as a chat image URL; undefined for a file reference. */
export function imageUrlFromSource(source: MessagesImageSource): string | undefined {
  if (source.type === 'base64') return `data:${source.media_type};base64,${source.data}`
  if (source.type === 'url') return source.url
  return undefined
}

/** A messages cache marker as chat's explicit breakpoint (its ttl has no chat equivalent). */
export function breakpointFrom(control: MessagesCacheControl | null | undefined): {
  prompt_cache_breakpoint?: ChatPromptCacheBreakpoint
} {
  return control ? { prompt_cache_breakpoint: { mode: 'explicit' } } : {}
}

/** A chat explicit breakpoint as a messages cache marker. */
export function cacheControlFrom(breakpoint: ChatPromptCacheBreakpoint | undefined): {
  cache_control?: MessagesCacheControl
} {
  return breakpoint ? { cache_control: { type: 'ephemeral' } } : {}
}

/**
 * The text of an assistant turn's blocks. Adjacent text blocks are one run of text (citations
 * split text into several blocks) and join directly; text on either side of a tool call or
 * thinking block is a separate paragraph.
 */
export function joinAssistantText(blocks: readonly { type?: unknown; text?: unknown }[]): string {
  let text = ''
  let separated = false
  for (const block of blocks) {
    if (block.type !== 'text' || typeof block.text !== 'string') {
      separated = text !== ''
      continue
    }
    if (separated && block.text !== '') text += '\n\n'
    text += block.text
    if (block.text !== '') separated = false
  }
  return text
}

/** A string field of an upstream reply, or '' when it is missing or of another type. */
export function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
