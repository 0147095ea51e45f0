// One server-sent events connection (the WHATWG format), as Mastodon's streaming API serves them
// (mastodon-stream.ts): a GET through the collectors' address guard (connectors/http.ts agentsFor), `event:`/`data:`
// fields up to a blank line making an event, `:` lines the server's heartbeat comments. It ends on a drop, an answer
// other than 200, `idleMs` without a byte, or close(); it is never opened again here (the caller's loop backs off).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { agentsFor } from '../connectors/http';

export interface SseEvent {
  name: string;
  data: string;
}

/** Reads chunks of a stream into events and comments. */
function sseReader(on: (event: SseEvent) => void, onComment: () => void) {
  let buffer = '';
  let name = '';
  let data: string[] = [];
  return (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) on({ name: name || 'message', data: data.join('\n') });
        name = '';
        data = [];
      } else if (line.startsWith(':')) onComment();
      else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      }
    }
  };
}

export interface SseConnection {
  /** Whether it opened (a 200 answer), and why it ended. */
  ended: Promise<{ opened: boolean; why: string }>;
  close(): void;
}

export function connectSse(
  url: URL,
  options: {
    allowPrivateHosts: boolean;
    idleMs: number;
    onOpen(): void;
    onEvent(event: SseEvent): void;
    onComment(): void;
  },
): SseConnection {
  let close = () => {};
  const ended = new Promise<{ opened: boolean; why: string }>((done) => {
    const agents = agentsFor({ allowPrivateHosts: options.allowPrivateHosts });
    const secure = url.protocol === 'https:';
    let opened = false;
    let over = false;
    const end = (why: string) => {
      if (over) return;
      over = true;
      req.destroy();
      done({ opened, why });
    };
    const req = (secure ? httpsRequest : httpRequest)(url, {
      agent: secure ? agents.https : agents.http,
      headers: { accept: 'text/event-stream', 'user-agent': 'MurmurCollector/1.0' },
    });
    close = () => end('closed here');
    req.setTimeout(options.idleMs, () => end(`silent for ${Math.round(options.idleMs / 1_000)} s`));
    req.on('error', (error) => end(error.message));
    req.on('response', (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.resume();
        return end(`HTTP ${response.statusCode}`);
      }
      opened = true;
      options.onOpen();
      const read = sseReader(options.onEvent, options.onComment);
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => read(chunk));
      response.on('end', () => end('the instance ended the stream'));
      response.on('error', (error) => end(error.message));
    });
    req.end();
  });
  return { ended, close: () => close() };
}
