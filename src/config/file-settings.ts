/**
 * The settings of files (`x-file` fields), declared in their place among ./settings.ts's:
 * where the bytes live (a folder, or S3-compatible object storage), how large an image may
 * be opened, and how long a stored file no record names is kept before the sweep removes it.
 */
import { ConfigError } from '../core/config-error.js';
import { integer, type Parser, seconds, text } from './parsers.js';
import type { Setting } from './setting.js';

/** `s3://bucket/prefix` (the prefix optional), or none. */
const s3Url: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (value !== '' && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/.test(value)) {
    throw new ConfigError(`${name} must be s3://BUCKET or s3://BUCKET/PREFIX, got "${raw}"`);
  }
  return value.replace(/\/+$/, '');
};

/** An http(s) URL, or none. */
const endpoint: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (value !== '' && (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))) {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  }
  return value;
};

export const FILE_SETTINGS = {
  filesDir: {
    default: '',
    parse: text,
    group: 'database',
    help: 'the folder files are kept in when `FILES_URL` is unset; none: `files` beside the SQLite file, or `./data/files` on PostgreSQL',
  },
  filesUrl: {
    default: '',
    parse: s3Url,
    group: 'database',
    help: 'keep files in S3-compatible object storage, `s3://BUCKET/PREFIX`, as many instances on one PostgreSQL need; credentials from the AWS SDK’s usual variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`)',
  },
  filesS3Endpoint: {
    default: '',
    parse: endpoint,
    group: 'database',
    help: 'the S3-compatible server to use in place of AWS (MinIO, R2, `http://127.0.0.1:9000`); set, addresses are path-style',
  },
  filesS3Region: {
    default: 'us-east-1',
    parse: text,
    group: 'database',
    help: 'the S3 region of `FILES_URL`’s bucket',
  },
  filesMaxPixels: {
    default: '40000000',
    parse: integer(1, 1_000_000_000),
    group: 'records',
    help: 'the most pixels an uploaded image may have (width × height): more is refused, so that no image can take the memory a thumbnail of it would need',
  },
  filesSweepGraceSeconds: {
    default: '21600',
    parse: seconds(0, 365 * 86400),
    group: 'server',
    help: 'seconds a stored file no record names is kept before the sweep removes it (what a crash mid-upload leaves); longer than any upload takes',
  },
  fileTokenSeconds: {
    default: '120',
    parse: integer(10, 86400),
    group: 'server',
    help: 'seconds a file token (`POST /<plural>/auth/file-token/`, for `?token=` in a link) is good for',
  },
} satisfies Record<string, Setting<unknown>>;
