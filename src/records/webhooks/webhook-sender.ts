/**
 * One delivery: a signed POST to a webhook's URL, and what came of it, as data (it never
 * throws). Written on node:http rather than fetch (undici): the guarded `lookup` has to sit
 * on the socket itself, so that the address checked is the address connected to, and an
 * answer has to be cut off at a bound with its socket destroyed. Each webhook has its own
 * keep-alive agent, so one slow receiver's sockets never hold up another's.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Webhook } from 'standardwebhooks';
import type { WebhookSecrets } from '../../store/webhook-model.js';
import { checkWebhookUrl, guardedLookup } from './webhook-address.js';
import { answerFailure, failureText, timeText } from './webhook-failure.js';

export interface WebhookSenderOptions {
  /** Whether loopback, private and other non-public addresses may be called (WEBHOOKS_ALLOW_PRIVATE). */
  readonly allowPrivate: boolean;
  /** The whole call, from its start to the end of the answer. */
  readonly timeoutMs: number;
  /** From the start to the socket's connection (the name's lookup included). */
  readonly connectTimeoutMs: number;
  /** How much of an answer is read; past it the socket is destroyed. */
  readonly maxAnswerBytes?: number;
  /** Sockets one webhook may have open at a time. */
  readonly maxSockets?: number;
  readonly userAgent: string;
}

export interface SendTarget {
  readonly url: string;
  readonly secrets: WebhookSecrets;
  /** The webhook's id: its keep-alive agent's key. */
  readonly key: number;
}

export type SendOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024;
const DEFAULT_MAX_SOCKETS = 16;

/** A request to make, and when it has to be over by. */
interface Call {
  readonly url: URL;
  readonly agent: HttpAgent;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly deadline: number;
}

interface KeyedAgent {
  readonly protocol: string;
  readonly agent: HttpAgent;
}

export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  readonly #maxAnswerBytes: number;
  readonly #agents = new Map<number, KeyedAgent>();

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
    this.#maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  }

  /** POSTs `message` to `target`; resolves with the outcome, never rejects. */
  async send(target: SendTarget, message: { messageId: string; body: string }, now = Date.now()): Promise<SendOutcome> {
    const refused = checkWebhookUrl(target.url, this.#options.allowPrivate);
    if (refused !== undefined) return { ok: false, status: null, error: refused };
    let signature: string;
    // Imported at the first delivery, not by a start that has no webhook to send.
    const signer = await import('standardwebhooks').then(
      (library) => library.Webhook,
      () => undefined,
    );
    if (!signer) return { ok: false, status: null, error: 'the standardwebhooks package cannot be loaded' };
    try {
      signature = signatures(signer, target.secrets, message, now);
    } catch {
      // The library's message could quote the secret's text: none is kept.
      return { ok: false, status: null, error: 'the webhook secret cannot sign (not a whsec_ secret)' };
    }
    const url = new URL(target.url);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(message.body)),
      'user-agent': this.#options.userAgent,
      'webhook-id': message.messageId,
      'webhook-timestamp': String(Math.floor(now / 1000)),
      'webhook-signature': signature,
    };
    try {
      const agent = this.#agentFor(target.key, url.protocol);
      return await this.#post({
        url,
        agent,
        headers,
        body: message.body,
        deadline: Date.now() + this.#options.timeoutMs,
      });
    } catch (error) {
      return { ok: false, status: null, error: failureText(error) };
    }
  }

  /** Drops the agent of one webhook (removed, or its URL changed), closing its sockets. */
  forget(key: number): void {
    this.#agents.get(key)?.agent.destroy();
    this.#agents.delete(key);
  }

  /** Closes every agent's sockets. */
  close(): void {
    for (const key of [...this.#agents.keys()]) this.forget(key);
  }

  #agentFor(key: number, protocol: string): HttpAgent {
    const kept = this.#agents.get(key);
    if (kept?.protocol === protocol) return kept.agent;
    this.forget(key);
    const options = {
      keepAlive: true,
      maxSockets: this.#options.maxSockets ?? DEFAULT_MAX_SOCKETS,
      lookup: guardedLookup(this.#options.allowPrivate),
    };
    const agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    this.#agents.set(key, { protocol, agent });
    return agent;
  }

  /**
   * One request. A keep-alive socket the receiver closed just as it was reused fails with a
   * reset before any answer: that request never reached the receiver, so it is made once
   * more on a new socket (node:http leaves this to its callers: `request.reusedSocket`).
   */
  #post(call: Call, retried = false): Promise<SendOutcome> {
    const { timeoutMs, connectTimeoutMs } = this.#options;
    return new Promise((resolve) => {
      const { url, agent, headers, body } = call;
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'POST', agent, headers });
      let status: number | null = null;
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      const settle = (outcome: SendOutcome | Promise<SendOutcome>) => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        resolve(outcome);
      };
      const stop = (error: string) => {
        settle({ ok: false, status, error });
        request.destroy();
      };
      // Timers of our own: the `timeout` option of node:http is an idle timeout, which a
      // receiver trickling a byte at a time never trips.
      const left = Math.max(call.deadline - Date.now(), 0);
      timers.push(setTimeout(() => stop(`timed out after ${timeText(timeoutMs)}`), left));
      request.on('socket', (socket: Socket) => {
        if (!socket.connecting) return; // a kept-alive socket, connected already
        const timer = setTimeout(() => stop(`connect timed out after ${timeText(connectTimeoutMs)}`), connectTimeoutMs);
        timers.push(timer);
        socket.once('connect', () => clearTimeout(timer));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && status === null && error.code === 'ECONNRESET';
        settle(stale && !retried ? this.#post(call, true) : { ok: false, status, error: failureText(error) });
      });
      request.on('response', (answer: IncomingMessage) => {
        status = answer.statusCode ?? null;
        this.#readAnswer(answer, (text) =>
          settle(answerFailure(answer, text) ?? { ok: true, status: status as number }),
        );
        answer.on('error', (error) => settle({ ok: false, status, error: failureText(error) }));
      });
      request.end(body);
    });
  }

  /**
   * Reads the answer up to the bound, then hands its text on. Past the bound the socket is
   * destroyed rather than drained: the rest of a 100 MB answer is never read, and a socket
   * in the middle of an answer cannot go back to the agent's pool.
   */
  #readAnswer(answer: IncomingMessage, done: (text: string) => void): void {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const end = () => done(Buffer.concat(chunks).toString('utf8'));
    answer.on('data', (chunk: Buffer) => {
      const room = this.#maxAnswerBytes - bytes;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += chunk.length;
      if (bytes > this.#maxAnswerBytes) {
        answer.destroy();
        end();
      }
    });
    answer.on('end', end);
  }
}

/**
 * The `webhook-signature` header: the current secret's signature and, while a rotation's
 * overlap lasts, the previous one's beside it, space-separated as Standard Webhooks has it,
 * so a receiver holding either secret verifies the message.
 */
function signatures(
  signer: typeof Webhook,
  secrets: WebhookSecrets,
  message: { messageId: string; body: string },
  now: number,
): string {
  const at = new Date(now);
  const sign = (secret: string) => signerOf(signer, secret).sign(message.messageId, at, message.body);
  const both = secrets.previous !== null && secrets.previousUntil !== null && secrets.previousUntil > now;
  return both ? `${sign(secrets.current)} ${sign(secrets.previous as string)}` : sign(secrets.current);
}

/** Each secret's signer, made once: making one decodes the secret's base64, every time. */
const signers = new Map<string, Webhook>();
const MAX_SIGNERS = 1024;

function signerOf(Signer: typeof Webhook, secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    // Rotated and removed webhooks leave theirs behind: a bound, not a cache policy.
    if (signers.size >= MAX_SIGNERS) signers.clear();
    signer = new Signer(secret);
    signers.set(secret, signer);
  }
  return signer;
}
