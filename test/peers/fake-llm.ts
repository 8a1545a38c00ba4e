// A loopback OpenAI-compatible server (chat completions, streamed as SSE) for driving the real
// pi in tests. Answers are scripted: each request takes the next queued reply, or echoes the
// last user message when the queue is empty. A reply can stall mid-stream (for abort tests);
// a stalled stream ends when the client goes away, on `release()`, or on `close()`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeReply =
  | { text: string; thinking?: string; chunkChars?: number; stall?: boolean }
  | { toolCall: { name: string; arguments: Record<string, unknown>; id?: string }; text?: string };

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_call_id?: string }[];
  tools?: unknown[];
  [key: string]: unknown;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>/v1`, as pi's models.json wants it. */
  readonly baseUrl: string;
  /** Every chat-completions body received, in order. */
  readonly requests: ChatRequest[];
  /** Queue replies for the next requests. */
  enqueue(...replies: FakeReply[]): void;
  /** Resolves once a stalled reply has started streaming (its text was sent). */
  stalled(): Promise<void>;
  /** Lets every stalled reply finish normally. */
  release(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const CHUNK_CHARS = 4;

/** The text of the newest user message, for the echo reply. */
function lastUserText(request: ChatRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  if (Array.isArray(user.content)) {
    return user.content
      .map((part: unknown) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : ''))
      .join('');
  }
  return '';
}

/** Splits by code points so a chunk never ends inside a surrogate pair. */
function chunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const queue: FakeReply[] = [];
  const requests: ChatRequest[] = [];
  const releases = new Set<() => void>();
  let stallWaiters: (() => void)[] = [];
  let nextId = 1;

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
          req.destroy();
          return;
        }
        parts.push(chunk);
      });
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      req.on('error', reject);
    });

  const stream = async (res: ServerResponse, reply: FakeReply, model: string): Promise<void> => {
    const id = `chatcmpl-${nextId++}`;
    const send = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): void => {
      const chunk = { id, object: 'chat.completion.chunk', created: 0, model, choices: choice ? [{ index: 0, ...choice }] : [], ...extra };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    send({ delta: { role: 'assistant', content: '' }, finish_reason: null });
    let finish = 'stop';
    if ('toolCall' in reply) {
      if (reply.text) send({ delta: { content: reply.text }, finish_reason: null });
      const args = JSON.stringify(reply.toolCall.arguments);
      const callId = reply.toolCall.id ?? `call_${nextId++}`;
      send({ delta: { tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: reply.toolCall.name, arguments: '' } }] }, finish_reason: null });
      for (const part of chunks(args, 16)) {
        send({ delta: { tool_calls: [{ index: 0, function: { arguments: part } }] }, finish_reason: null });
      }
      finish = 'tool_calls';
    } else {
      if (reply.thinking) {
        for (const part of chunks(reply.thinking, reply.chunkChars ?? CHUNK_CHARS)) send({ delta: { reasoning_content: part }, finish_reason: null });
      }
      for (const part of chunks(reply.text, reply.chunkChars ?? CHUNK_CHARS)) send({ delta: { content: part }, finish_reason: null });
      if (reply.stall) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            releases.delete(done);
            resolve();
          };
          releases.add(done);
          res.once('close', done);
          const waiters = stallWaiters;
          stallWaiters = [];
          for (const wake of waiters) wake();
        });
        if (res.destroyed || res.writableEnded) return;
      }
    }
    send({ delta: {}, finish_reason: finish });
    send(null, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    res.end('data: [DONE]\n\n');
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake-llm has no ${req.method} ${req.url}` } }));
        return;
      }
      let body: ChatRequest;
      try {
        body = JSON.parse(await readBody(req)) as ChatRequest;
      } catch (err) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake-llm: ${(err as Error).message}` } }));
        return;
      }
      requests.push(body);
      const reply = queue.shift() ?? { text: `You said: ${lastUserText(body)}` };
      await stream(res, reply, body.model);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    stalled: () => (releases.size > 0 ? Promise.resolve() : new Promise((resolve) => stallWaiters.push(resolve))),
    release: () => {
      for (const done of [...releases]) done();
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const done of [...releases]) done();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
