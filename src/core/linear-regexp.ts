/**
 * The regular expressions of declared schemas (`pattern`, `patternProperties`), compiled
 * by RE2JS: matching takes time linear in the input, so no pattern a schema's author wrote
 * and no value a client sends can hold the event loop (`^(a+)+$` against 28 `a`s and a `!`
 * took JavaScript's engine 8 s). RE2 refuses what it cannot match in linear time
 * (lookarounds, backreferences): such a schema is refused as it loads, naming the pattern.
 */
import type { CodeOptions } from 'ajv';
import { RE2JS } from 're2js';

function compile(pattern: string): { test(text: string): boolean } {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(
      `the pattern ${JSON.stringify(pattern)} needs more than RE2 matches in linear time (${(error as Error).message})`,
    );
  }
}

/** Ajv's RegExp engine; its `code` is what standalone code would import (restock generates none). */
export const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign(compile, { code: 're2js' });
