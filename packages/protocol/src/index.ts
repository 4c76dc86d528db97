export * from './limits.js'
export * from './standard-tools/inputs.js'
export * from './standard-tools/types.js'
export * from './standard-tools/validate.js'
