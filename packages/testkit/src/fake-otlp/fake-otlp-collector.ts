import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';
import { type ReceivedSpan, spansOfExport } from './otlp-json-spans.js';

/**
 * How the fake collector answers exports: `none` takes them (200 `{}`), `unavailable` answers 503
 * as a collector shedding load does, `hang` never answers (a slow or stuck collector; the client's
 * timeout ends the call), `partial` takes them but reports one span of each request rejected.
 */
export type FakeOtlpFault = 'none' | 'unavailable' | 'hang' | 'partial';

/** One export request the collector received. */
export interface FakeOtlpRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** How many spans it carried (0 for a body that was not OTLP JSON). */
  spans: number;
}

/** A running fake OTLP/HTTP collector (traces, JSON encoding). */
export interface FakeOtlpCollector {
  /** The base URL for `telemetry.otlp_endpoint` (spans go to `<baseUrl>/v1/traces`). */
  baseUrl: string;
  requests: FakeOtlpRequest[];
  /** Every span taken so far, in arrival order. */
  spans: ReceivedSpan[];

  setFault(fault: FakeOtlpFault): void;
  /** Resolves once at least `count` spans matching `match` have been taken (or rejects after `timeoutMs`). */
  waitForSpans(
    count: number,
    match?: (span: ReceivedSpan) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

/**
 * A collector that speaks OTLP/HTTP as the OpenTelemetry Collector does for JSON:
 * `POST /v1/traces` with `content-type: application/json`, an `ExportTraceServiceRequest` body;
 * answers 200 with an `ExportTraceServiceResponse`, 415 for another encoding (protobuf is not
 * decoded here), 400 for a body that is not one, 404 elsewhere. On 127.0.0.1 only.
 */
export async function startFakeOtlpCollector(
  options: { fault?: FakeOtlpFault } = {},
): Promise<FakeOtlpCollector> {
  let fault = options.fault ?? 'none';
  const requests: FakeOtlpRequest[] = [];
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const lifetime = new AbortController();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://loopback').pathname;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || path !== '/v1/traces') return answer(res, 404, { message: 'not found' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return answer(res, 415, { message: 'only application/json is decoded by this fake' });
    const request: FakeOtlpRequest = { path, headers: req.headers, spans: 0 };
    requests.push(request);

    if (fault === 'hang') {
      await new Promise<void>((resolve) => {
        lifetime.signal.addEventListener('abort', () => resolve(), { once: true });
        res.once('close', () => resolve());
      });
      return;
    }
    if (fault === 'unavailable') return answer(res, 503, { message: 'collector unavailable' });
    let received: ReceivedSpan[];
    try {
      received = spansOfExport(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (error) {
      return answer(res, 400, { message: `not an ExportTraceServiceRequest: ${String(error)}` });
    }
    request.spans = received.length;
    spans.push(...(fault === 'partial' ? received.slice(1) : received));
    for (const wake of [...waiters]) wake();
    answer(
      res,
      200,
      fault === 'partial' && received.length > 0
        ? { partialSuccess: { rejectedSpans: '1', errorMessage: 'one span rejected by the fake' } }
        : {},
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, 500, { message: String(error) }));
  });
  const { baseUrl } = await listenOnLoopback(server);
  return {
    baseUrl,
    requests,
    spans,
    setFault(next) {
      fault = next;
    },
    waitForSpans(count, match = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = spans.filter(match);
          if (found.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the collector took ${spans.filter(match).length} of ${count} spans awaited`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: closeOnce(server, lifetime),
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
