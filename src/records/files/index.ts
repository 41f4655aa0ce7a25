/** Files of records (`x-file` fields): uploads staged and checked, put around their record's write, and their values. */
export { FileRefusal } from './file-refusal.js';
export { IMAGE_TYPES } from './file-types.js';
export { createdFiles, filesResolver, type Upload } from './file-values.js';
export { discardStaged, type SentFile, type StagedFile, stageFile } from './staging.js';
export { type FileSettings, uploadsFingerprint, withStoredUploads } from './stored-uploads.js';
