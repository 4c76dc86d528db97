export {
  EmptyFileError,
  FileService,
  InvalidFilenameError,
  type NewFileContent,
} from './file-service.js'
export { checkFilename, contentDisposition, MAX_FILENAME_BYTES } from './filename.js'
export { DEFAULT_FILE_MAX_BYTES } from './limits.js'
export { cleanMimeType, mimeTypeFor } from './mime-type.js'
export { type FileObject, toFileObject } from './wire.js'
