// The page's one event stream (/ui/api/events): browsers allow about six connections per origin, so
// every view listens to this one EventSource instead of opening its own.
import { useEffect, useRef } from 'preact/hooks';

export type LiveKind = 'agent' | 'lane' | 'usage' | 'step' | 'approval';
type Listener = (kind: LiveKind, data: Record<string, unknown>) => void;

const listeners = new Set<Listener>();
let source: EventSource | undefined;

function open(): void {
  if (source) return;
  source = new EventSource('/ui/api/events');
  for (const kind of KINDS) {
    source.addEventListener(kind, (event) => {
      const data = JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>;
      for (const listener of listeners) listener(kind, data);
    });
  }
}

const KINDS = ['agent', 'lane', 'usage', 'step', 'approval'] as const;

// A hidden tab gives its connection back (a browser keeps about six per host across all its tabs,
// and the host need not send to a page nobody sees); shown again, it reconnects and every view
// refetches what it shows, as it may have missed events meanwhile.
if (typeof document !== 'undefined')
  document.addEventListener('visibilitychange', () => {
    if (listeners.size === 0) return;
    if (document.hidden) closeLive();
    else {
      open();
      for (const listener of listeners) for (const kind of KINDS) listener(kind, {});
    }
  });

export function closeLive(): void {
  source?.close();
  source = undefined;
}

/** Call `handler` for each live event of the given kinds while the component is mounted. */
export function useLive(kinds: readonly LiveKind[], handler: Listener): void {
  const latest = useRef(handler);
  latest.current = handler;
  const key = kinds.join(',');
  useEffect(() => {
    open();
    const wanted = new Set(key.split(','));
    const listener: Listener = (kind, data) => {
      if (wanted.has(kind)) latest.current(kind, data);
    };
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, [key]);
}

/** Refetch on live events, at most every `ms` (a busy fleet sends many). */
export function useLiveRefresh(kinds: readonly LiveKind[], refresh: () => void, ms = 500): void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useLive(kinds, () => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refresh();
    }, ms);
  });
}
