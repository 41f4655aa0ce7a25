/**
 * The kinds of problem files answer with (uploads, downloads, thumbnails): part of
 * ./problem-types.ts's catalog.
 */
export const FILE_PROBLEM_TYPES = {
  'file-too-large': {
    status: 413,
    title: 'File too large',
    description: "A file is larger than its field's maxBytes; nothing of the request was kept.",
  },
  'file-type-refused': {
    status: 415,
    title: 'File type refused',
    description:
      "A file's content is of a type its field does not take, or is not of the type its name or its part's " +
      'Content-Type claims (a PNG named .jpg, HTML sent as image/png); nothing of the request was kept.',
  },
  'too-many-files': {
    status: 422,
    title: 'Too many files',
    description: 'A file field would hold more files than its maxFiles, or a part names no file field.',
  },
  'image-too-large': {
    status: 422,
    title: 'Image too large',
    description:
      'An image has more pixels than the server opens (FILES_MAX_PIXELS), or cannot be read as the image it ' +
      'claims to be (a decompression bomb, a truncated file); nothing of the request was kept.',
  },
  'file-not-uploaded': {
    status: 422,
    title: 'File not uploaded',
    description:
      "A file field's value names a file the record does not hold. Files arrive as multipart/form-data parts; " +
      'JSON may only keep files the record holds, or remove them with null.',
  },
  'incomplete-upload': {
    status: 400,
    title: 'Incomplete upload',
    description: 'The multipart/form-data body is malformed or ended before its last boundary; nothing was kept.',
  },
  'invalid-thumbnail': {
    status: 400,
    title: 'Invalid thumbnail size',
    description:
      "A thumbnail was asked of a size its field does not list (x-file's thumbs), or of a file that is no image.",
  },
  'range-not-satisfiable': {
    status: 416,
    title: 'Range not satisfiable',
    description:
      "A download's Range asks for no byte the file has (it starts past its end); Content-Range gives its size.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;
