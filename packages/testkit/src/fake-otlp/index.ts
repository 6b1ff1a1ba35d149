export {
  type FakeOtlpCollector,
  type FakeOtlpFault,
  type FakeOtlpRequest,
  startFakeOtlpCollector,
} from './fake-otlp-collector.js';
export { type ReceivedSpan, spansOfExport } from './otlp-json-spans.js';
