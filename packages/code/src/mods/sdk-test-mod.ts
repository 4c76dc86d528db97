// A mod written in TypeScript on the SDK, for the host's tests: it draws what it was granted,
// narrows its subscription, and on each turn end posts a note and shows the session state.
import { createMod } from '@syntic/mod-sdk'

const mod = createMod({
  onHello(hello) {
    mod.draw('pane', { title: 'sdk', lines: [`granted: ${hello.granted.join(',')}`] })
    mod.subscribe(['turn.end', 'no.such.event' as 'turn.end'])
  },
})

mod.onEvent('turn.start', ({ turn }) => mod.draw('status', `started ${turn}`))
mod.onEvent('turn.end', async ({ turn }) => {
  await mod.note(`turn ${turn} ended`)
  const state = await mod.state()
  mod.draw('band', `${state.model} ${state.turns} ${state.permission_mode}`)
})
