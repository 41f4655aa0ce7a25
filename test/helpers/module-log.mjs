// Loaded with `node --import` into a server a test starts: appends the file of every module the
// process loads, one a line, to the file MODULE_LOG names. ES modules (and CommonJS ones an ES
// module imports) through a load hook, which runs on Node's hooks thread; CommonJS required by
// CommonJS through Module._load, on the main thread. Nothing of it is in the product.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url);

const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function logged(request, parent, isMain) {
  const exported = load.call(this, request, parent, isMain);
  if (!request.startsWith('node:')) {
    try {
      appendFileSync(process.env.MODULE_LOG, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      // A built-in by its bare name ('fs'): not a package.
    }
  }
  return exported;
};
