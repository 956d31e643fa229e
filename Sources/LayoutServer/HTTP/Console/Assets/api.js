// The console's way to the daemon: PROTOCOL.md bodies over HTTP, as services send them over ZeroMQ.
let nextId = 1;
const tokenKey = 'layoutd.console.token';

export class HTTPError extends Error {
  constructor(status, error) { super(error?.message ?? `HTTP ${status}`); this.status = status; this.error = error; }
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

export function setToken(token) { sessionStorage.setItem(tokenKey, token); }

let unauthorized = () => {};
export function onUnauthorized(handler) { unauthorized = handler; }

async function json(response) {
  const text = await response.text();
  let body;
  try { body = JSON.parse(text); } catch { throw new HTTPError(response.status, { code: 'http', message: text }); }
  if (response.status === 401) unauthorized();
  return body;
}

/** Sends one request body to the front; resolves with the reply (ok or not), rejects on no reply. */
export async function call(request) {
  const body = { v: 1, id: nextId++, ...request };
  const response = await fetch('/api/request', { method: 'POST', headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify(body) });
  const reply = await json(response);
  reply.httpStatus = response.status;
  return reply;
}

/** Like call, but throws the protocol error. */
export async function result(request) {
  const reply = await call(request);
  if (!reply.ok) throw new HTTPError(reply.httpStatus, reply.error);
  return reply.result;
}

export async function stats() {
  const response = await fetch('/api/stats', { headers: headers() });
  const body = await json(response);
  if (!response.ok) throw new HTTPError(response.status, body.error);
  return body;
}

export async function consoleSettings() {
  const response = await fetch('/api/console', { headers: headers() });
  return json(response);
}

/** Streams events (Server-Sent Events over fetch, so the token header goes along); returns a stop function. */
export function events(topic, onEvent, onState = () => {}) {
  const controller = new AbortController();
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(`/api/events?topic=${encodeURIComponent(topic)}`, { headers: headers(), signal: controller.signal });
        if (response.status === 401) { unauthorized(); return; }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        onState('open');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const chunk = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of chunk.split('\n')) {
              if (line.startsWith('data: ')) {
                try { onEvent(JSON.parse(line.slice(6))); } catch { /* not ours */ }
              }
            }
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        onState('closed');
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return () => controller.abort();
}
