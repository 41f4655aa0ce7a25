/**
 * Files of records (`x-file` fields): uploads staged and checked, put around their record's
 * write, and their values; the old files removed after their changes commit (the reaper), and
 * what no record names removed now and then (the sweep).
 */

export { FileReaper, type FileReaperOptions } from './file-reaper.js';
export { FileRefusal } from './file-refusal.js';
export { type FileSweepOptions, sweepFiles } from './file-sweep.js';
export { IMAGE_TYPES, type SentFile } from './file-types.js';
export { createdFiles, filesResolver, type Upload } from './file-values.js';
export { discardStaged, type StagedFile, stageFile } from './staging.js';
export { type FileSettings, uploadsFingerprint, withStoredUploads } from './stored-uploads.js';
