import { z } from 'zod';
import { secretRef } from './config-fields.js';
import type { DeepReadonly } from './deep-readonly.js';

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'an HTTP header name (letters, digits, "-")');

/**
 * `telemetry:` in mesh.yaml: OpenTelemetry traces sent over OTLP/HTTP (JSON) to a collector.
 * Off unless `otlp_endpoint` is set. Export never holds up a request: spans wait in a bounded queue
 * and are dropped, and counted, when the collector is down or slow.
 */
export const telemetryConfigSchema = z
  .object({
    /**
     * The collector's OTLP/HTTP base URL (`http://127.0.0.1:4318`); spans go to `<url>/v1/traces`
     * (a URL already ending in `/v1/traces` is used as it is). Unset: no traces leave the host.
     */
    otlp_endpoint: z.url({ protocol: /^https?$/, error: 'otlp_endpoint must be an http(s) URL' }).optional(),
    /** Headers sent with each export (a collector's API key): references into the vault, never values. */
    headers: z.record(headerName, secretRef).default({}),
    /** `service.name` of the host's spans (the agents' spans come through the host under the same name). */
    service_name: z.string().min(1).max(100).default('openlegion'),
    /**
     * Spans waiting to be sent; past this, new spans are dropped and counted. 2048 is the
     * OpenTelemetry SDKs' default: a few hundred chats' worth, a few MB at most.
     */
    max_queue_spans: z.number().int().min(16).max(100_000).default(2048),
    /** Spans per export request (the SDKs' default 512 keeps a request well under a collector's 4 MB limit). */
    max_batch_spans: z.number().int().min(1).max(10_000).default(512),
    /** How often the queue is sent even when no batch is full; 1 s keeps traces near live at one request a second at most. */
    export_interval_ms: z.number().int().min(10).max(60_000).default(1_000),
    /**
     * An export that takes longer is cut and its spans are dropped (counted): a slow collector
     * costs the host one open request at a time, never a growing backlog.
     */
    export_timeout_ms: z.number().int().min(100).max(60_000).default(5_000),
  })
  .strict();
export type TelemetryConfig = DeepReadonly<z.infer<typeof telemetryConfigSchema>>;
