export * from './chat-stream.js'
