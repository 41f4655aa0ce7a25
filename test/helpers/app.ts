/**
 * Building the real app for a test: a real database from {@link STORE_KINDS}, the default
 * configuration, logs off unless asked for.
 */
import { after, before } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type Config, defaultConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import { type ContractRecorder, checkAgainstDocument } from './openapi-validator.js';
import type { TestDatabase, TestStoreKind } from './stores.js';

export interface TestContext {
  app: FastifyInstance;
  db: TestDatabase;
  /** With `contract`: every exchange checked against the app's OpenAPI document (./openapi-validator.ts). */
  contract?: ContractRecorder;
}

/**
 * A fresh database of `kind` for a suite that builds its own apps (several on one database,
 * or with options `useApp` does not take), dropped after the suite.
 */
export function useDatabase(kind: TestStoreKind): DatabaseContext {
  const holders: { close(): unknown }[] = [];
  const context = {
    holding<T extends { close(): unknown }>(holder: T): T {
      holders.push(holder);
      return holder;
    },
  } as DatabaseContext;
  before(async () => {
    context.db = await kind.create();
  });
  after(async () => {
    for (const holder of holders.splice(0)) await holder.close();
    await context.db?.drop();
  });
  return context;
}

export interface DatabaseContext {
  db: TestDatabase;
  /**
   * Closes `holder` (an app, a store) before the database is dropped: a drop ends the
   * connections still open, and the suite's own `after` hooks run after this one.
   */
  holding<T extends { close(): unknown }>(holder: T): T;
}

/**
 * Builds an app on a fresh database of `kind` before the suite and tears both down after.
 * Load shedding is off unless `overrides` turns it on: it answers by how busy the machine
 * is, and test/limits.test.ts tests it where it is the subject. With `contract`, every
 * exchange is checked against the app's own OpenAPI document; the suite then ends with
 * `itKeptTheDocument(ctx)` (./openapi-validator.ts), which fails on any mismatch.
 */
export function useApp(
  kind: TestStoreKind,
  overrides: Partial<Config> = {},
  { contract = false }: { contract?: boolean } = {},
): TestContext {
  const context = {} as TestContext;
  before(async () => {
    context.db = await kind.create();
    context.app = await buildApp({
      config: defaultConfig({ maxEventLoopDelay: 0, ...overrides, databaseUrl: context.db.url }),
      logStream: false,
    });
    if (contract) context.contract = checkAgainstDocument(context.app);
    await context.app.ready();
    await context.contract?.load();
  });
  // The app first: it holds connections to the database.
  after(async () => {
    await context.app?.close();
    await context.db?.drop();
  });
  return context;
}

/** The parsed JSON body of a response. */
export function body<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** Creates a record through the API and returns it. */
export async function create(
  app: FastifyInstance,
  singular: string,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: number }> {
  const response = await app.inject({ method: 'POST', url: `/${singular}/`, headers: JSON_HEADERS, payload: fields });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return body(response);
}

/** Asserts an RFC 9457 problem response and returns its body. */
export function problem(response: LightMyRequestResponse, status: number, typeSuffix?: string) {
  const got = { status: response.statusCode, type: response.headers['content-type'], body: response.body };
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${JSON.stringify(got)}`);
  if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
    throw new Error(`expected a problem document, got ${JSON.stringify(got)}`);
  }
  const parsed = body<{ type: string; title: string; status: number; detail: string; instance: string }>(response);
  for (const key of ['type', 'title', 'status', 'detail', 'instance'] as const) {
    if (parsed[key] === undefined) throw new Error(`problem lacks ${key}: ${response.body}`);
  }
  if (parsed.status !== status) throw new Error(`problem status ${parsed.status} != ${status}`);
  if (typeSuffix && !parsed.type.endsWith(`/${typeSuffix}`)) {
    throw new Error(`problem type ${parsed.type} does not end with /${typeSuffix}`);
  }
  return parsed as typeof parsed & { errors?: { pointer: string; message: string }[] };
}
