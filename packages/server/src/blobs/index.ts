export { BLOBS_FOLDER, LocalBlobStore, newBlobKey } from './local-blob-store.js'
export { type BlobStore, BlobTooLargeError } from './port.js'
