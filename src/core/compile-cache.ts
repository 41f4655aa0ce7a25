/**
 * Node.js's compile cache (Node 22.1 and later): the code V8 compiles for each module is kept
 * on disk and reused by the next start, which then compiles little of it again (compiling was
 * about a seventh of a start's CPU in a profile; on Node.js 24 the cache took about 5% off a
 * start's CPU: docs/performance.md, Start-up and footprint). The folder is Node's choice:
 * NODE_COMPILE_CACHE when set, else node-compile-cache in the OS's temporary folder;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 * A cache that cannot be used (Node 20 has none; a folder it cannot write) is only a slower
 * start, never a failed one: nothing here throws.
 */
import module from 'node:module';

/** The parts of node:module this uses, absent from Node 20 (and from its type definitions). */
interface CompileCacheApi {
  enableCompileCache?: () => unknown;
  flushCompileCache?: () => void;
}

const api = module as unknown as CompileCacheApi;

/** Turns the cache on for the modules loaded from now on, where Node.js has one. */
export function enableCompileCache(): void {
  try {
    api.enableCompileCache?.();
  } catch {
    // A slower start, not a failed one.
  }
}

/**
 * Writes what the cache gathered so far (Node 22.10 and later; older lines write it at exit):
 * called once the server serves, so that the next start gains even when this one is killed.
 */
export function flushCompileCache(): void {
  try {
    api.flushCompileCache?.();
  } catch {
    // As above.
  }
}
