// The load hook of ./module-log.mjs: every module loaded through the ES module loader.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.MODULE_LOG, `${url}\n`);
  return next(url, context);
}
