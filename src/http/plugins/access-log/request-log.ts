/**
 * A request's logger, made only when something logs through it. Fastify gives every
 * request a pino child bound to its id, and a child costs a copy of the logger with its
 * bindings serialized, on every request (bench/README.md, "Where the microseconds of GET
 * one go"); nearly all requests log nothing but their access log line, which the access
 * log writes through the parent with the request id first: the same line ({@link RequestLog.parentWrites}).
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LogFn = FastifyBaseLogger['info'];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export class RequestLog implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, made the first time it is needed. */
  get made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }

  /**
   * Whether a line at info may go through the parent, as the child would write it: while
   * no child exists (so nothing changed its level or bindings) and the route has no level
   * or serializers of its own.
   */
  get parentWrites(): boolean {
    return this.#child === undefined && this.options.level === undefined && this.options.serializers === undefined;
  }
}

// On the prototype, not as fields: nothing is made per request until a line is logged.
for (const level of LEVELS) {
  Object.defineProperty(RequestLog.prototype, level, {
    value(this: RequestLog, ...args: unknown[]) {
      (this.made as unknown as Record<string, (...a: unknown[]) => void>)[level]?.(...args);
    },
  });
}

/** Fastify's `childLoggerFactory`: a {@link RequestLog} in place of a pino child. */
export const requestLogFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new RequestLog(logger, bindings, options);
