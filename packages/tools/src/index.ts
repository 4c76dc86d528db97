export * from './handler.js'
export * from './result.js'
