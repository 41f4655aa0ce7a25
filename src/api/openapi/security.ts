/**
 * Who may call each operation, as the document says it: the security schemes (API keys,
 * accounts' access tokens) and, per operation, the ones it really accepts, read from the
 * route's policy (src/http/route-policy.ts) as the access control reads it
 * (src/http/plugins/access-control/access-control.ts), and from the collection's rules (`x-rules`).
 */
import type { RouteOptions } from 'fastify';
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import type { RuleOperation } from '../../core/rules/rule-tree.js';
import { READ_METHODS } from '../methods.js';
import type { ProblemKind } from '../problem-types.js';
import { mayAdmitAnonymous } from './rule-anonymous.js';

/** What the access control checks: API keys, access tokens (accounts or an outside provider), collections' rules. */
export interface AccessOn {
  keys: boolean;
  tokens: boolean;
  ruled: boolean;
}

/** One way to meet an operation's security: every scheme it names; `{}` names none (no credential). */
type Requirement = Record<string, string[]>;

/** What the document says of one route's access: its security, a sentence for its description, its refusals. */
export interface RouteAccess {
  security?: Requirement[];
  description?: string;
  problems: ProblemKind[];
  /** A list or feed whose rule never holds without a credential: such a caller gets nothing (`x-anonymous-gets`). */
  anonymousGetsNothing?: boolean;
}

const API_KEY: Requirement = { apiKey: [] };
const ACCESS_TOKEN: Requirement = { accessToken: [] };
const FILE_TOKEN: Requirement = { fileToken: [] };

/** The schemes: `apiKey` always (as before accounts), `accessToken` where tokens are verified and rules take them. */
export function securitySchemes(catalog: Catalog, tokens: boolean) {
  const signIns = catalog.collections.filter((c) => c.account).map((c) => `POST /${c.plural}/auth/`);
  const own =
    signIns.length > 0
      ? `restock's own (signed ES256, short-lived: ACCESS_TOKEN_MINUTES; from ${signIns.join(', ')}, ` +
        'renewed at the refresh path beside it)'
      : "restock's own";
  return {
    apiKey: {
      type: 'http' as const,
      scheme: 'bearer',
      description: 'An API key, when the server has keys (API_KEYS); see SECURITY.md for who may call what.',
    },
    ...(tokens && {
      accessToken: {
        type: 'http' as const,
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          `An account's access token: ${own}, or an outside identity provider's (AUTH_ISSUER). ` +
          "It is accepted where a collection's rules (x-rules) decide; a change feed also takes it as " +
          '`?access_token=`.',
      },
      ...(signIns.length > 0 && {
        fileToken: {
          type: 'apiKey' as const,
          in: 'query' as const,
          name: 'token',
          description:
            "A file token (POST /<accounts>/auth/file-token/): an account's, short-lived (FILE_TOKEN_SECONDS), " +
            'taken on file downloads only, for links that cannot carry a header.',
        },
      }),
    }),
  };
}

/**
 * The access of `route`: public routes need nothing; where the collection's rules decide,
 * an API key, an access token, or none where the rule can hold without one; where its
 * rules leave the operation out, an API key only; elsewhere the document's own security.
 */
export function routeAccess(route: RouteOptions, on: AccessOn, catalog: Catalog): RouteAccess {
  const config = route.config ?? {};
  const checked = on.keys || on.tokens || on.ruled;
  // A server that checks nothing keeps its document as it was before any of this.
  if (config.public) return { problems: [], ...(checked && { security: [] }) };
  const writes = [route.method].flat().some((method) => !READ_METHODS.has(method));
  const unauthorized: ProblemKind[] = checked ? ['unauthorized'] : [];
  const forbidden = (when: boolean): ProblemKind[] => (when ? ['forbidden'] : []);
  if (config.batch) return batchAccess(on, unauthorized);
  // Without keys, such a route is as open as the rest (the access control lets everyone in).
  if (config.writeKey && on.keys) {
    const tokens = on.tokens ? "; an account's token is refused too" : '';
    return {
      // A requirement of its own per route: one object met on every webhook route is a YAML alias each time.
      security: [{ ...API_KEY }],
      description: `Only a write API key may call this, reads included: a read key gets 403${tokens}.`,
      problems: [...unauthorized, 'forbidden'],
    };
  }
  if (config.rules === undefined) {
    // A read key cannot write; with keys, an account's token is refused where no rules apply.
    return { problems: [...unauthorized, ...forbidden(on.keys && (writes || on.tokens))] };
  }
  const ruled = ruleOf(catalog, route);
  const name = ruled ? `\`${ruled.operation}\`` : 'this';
  if (config.rules === 'keys') {
    return {
      security: [API_KEY],
      description: `Only an API key may call this: the collection's rules (x-rules) have no ${name} rule${
        on.tokens ? ", and an account's token is refused (403)" : ''
      }.`,
      problems: [...unauthorized, ...forbidden(on.tokens || (on.keys && writes))],
    };
  }
  // A list (or feed) whose rule never holds without a credential still answers such a caller,
  // with nothing in it: the operation admits them, so `{}` is listed for it too.
  const anonymous = ruled ? ruled.operation === 'list' || mayAdmitAnonymous(ruled.collection, ruled.operation) : true;
  const text = ruled && ruleText(ruled.collection, ruled.operation);
  const decides = `the collection's ${name} rule (x-rules)${text ? `, \`${text}\`,` : ''} decides`;
  return {
    security: [
      API_KEY,
      ...(on.tokens ? [ACCESS_TOKEN] : []),
      // A file token is an account's: where no collection holds accounts, none is made.
      ...(on.tokens && config.fileToken && catalog.collections.some((c) => c.account) ? [FILE_TOKEN] : []),
      ...(anonymous ? [{}] : []),
    ],
    description:
      `Without an API key, ${decides} for the caller${on.tokens ? ' (an account, by its access token)' : ''}. ` +
      (ruled === undefined || mayAdmitAnonymous(ruled.collection, ruled.operation)
        ? 'It can hold for a caller with no credential at all.'
        : `It never holds for a caller with no credential, who gets ${ANONYMOUS_REFUSED[ruled.operation]}.`),
    // The rules may let a caller see a record but not change it; a read key cannot write either.
    problems: [...unauthorized, ...forbidden(writes)],
    ...(ruled?.operation === 'list' && !mayAdmitAnonymous(ruled.collection, 'list') && { anonymousGetsNothing: true }),
  };
}

/**
 * A batch's access: each of its operations is authorized as it would be alone, so anyone its
 * operations would let in may send one, and any refusal of theirs can end it.
 */
function batchAccess(on: AccessOn, unauthorized: ProblemKind[]): RouteAccess {
  if (!on.ruled) return { problems: [...unauthorized, ...(on.keys ? (['forbidden'] as const) : [])] };
  return {
    security: [API_KEY, ...(on.tokens ? [ACCESS_TOKEN] : []), {}],
    description:
      "Each operation is authorized as if it were sent alone: an API key's scope, or the rules (x-rules) of " +
      'the collection it names; a batch whose operation would be refused alone is refused at that operation.',
    problems: [...unauthorized, 'forbidden'],
  };
}

/** What a caller without a credential gets where the rule never lets one in (src/records/rules/record-access.ts). */
const ANONYMOUS_REFUSED: Record<RuleOperation, string> = {
  list: 'nothing listed (an empty page, a quiet feed), not a 401',
  view: 'a 404, as for a record that does not exist',
  create: 'a 403',
  update: 'a 404, or a 403 for a record it may view',
  delete: 'a 404, or a 403 for a record it may view',
};

/** The collection and rule a collection route stands for: its canonical paths, and the aliases. */
function ruleOf(
  catalog: Catalog,
  route: RouteOptions,
): { collection: Collection; operation: RuleOperation } | undefined {
  const method = [route.method].flat()[0];
  const collection = catalog.byPath(route.url.split('/')[1] ?? '');
  const operation = collection && operationAt(route.url, method, collection.plural, collection.singular);
  return collection && operation ? { collection, operation } : undefined;
}

function operationAt(url: string, method: string | undefined, plural: string, singular: string) {
  const path = url.endsWith('/') ? url : `${url}/`;
  if (path === `/${plural}/` || path === `/${plural}/events/`) return method === 'POST' ? 'create' : 'list';
  if (path === `/${singular}/` && method === 'POST') return 'create';
  if (path === `/${singular}/:id/files/:field/:name/` || path === `/${plural}/:id/files/:field/:name/`) return 'view';
  if (path === `/${singular}/:id/` || path === `/${plural}/:id/`) {
    return method === 'GET' ? 'view' : method === 'DELETE' ? 'delete' : 'update';
  }
  return undefined;
}

/**
 * A rule's text as the schema wrote it, when the collection's rules are the schema's: the
 * catalog keeps the parsed tree, and the schema document the text.
 */
function ruleText(collection: Collection, operation: RuleOperation): string | undefined {
  if (!collection.schema || collection.rules !== collection.schema.rules) return undefined;
  const texts = collection.schema.document['x-rules'] as Record<string, unknown> | undefined;
  const text = texts?.[operation];
  return typeof text === 'string' ? text : undefined;
}

/** The `access_token` parameter of the change feeds whose rules take tokens too: it takes either credential. */
export function documentQueryTokens(openapi: object, collections: readonly Collection[], tokens: boolean): void {
  if (!tokens) return;
  const paths = (openapi as { paths?: Record<string, { get?: { parameters?: object[] } }> }).paths;
  for (const { plural, rules } of collections) {
    if (Object.keys(rules).length === 0) continue;
    for (const parameter of paths?.[`/${plural}/events/`]?.get?.parameters ?? []) {
      const named = parameter as { in?: string; name?: string; description?: string };
      if (named.in !== 'query' || named.name !== 'access_token') continue;
      named.description =
        "The API key or an account's access token, for clients that cannot send Authorization " +
        "(a browser's EventSource). Never written to the access log.";
    }
  }
}
