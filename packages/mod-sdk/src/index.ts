export * from './messages.js'
export { createMod, type DrawContent, type Mod, ModCallError, type ModOptions } from './mod.js'
