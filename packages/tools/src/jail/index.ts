export { AlreadyExistsError, JailEntry, PathJail, type WriteOptions } from './jail.js'
export { type Located, MAX_NAME_BYTES, MAX_PATH_BYTES } from './locate.js'
