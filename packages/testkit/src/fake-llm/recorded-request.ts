import type { IncomingHttpHeaders } from 'node:http';

/** One HTTP request the fake LLM received, as tests inspect it. */
export interface RecordedRequest {
  method: string;
  /** URL path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Every header the server received; names are lower-case. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
  /** When the request arrived, ms since the epoch. */
  at: number;
  /** Index of the script rule that answered a chat completion; absent when the default answered. */
  ruleIndex?: number;
}
