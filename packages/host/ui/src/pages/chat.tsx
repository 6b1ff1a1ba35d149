import type { MeshStatus } from '@openlegion/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, postJson, readSse } from '../api';
import { ErrorBox } from '../components';
import { useLoad } from '../use-load';

interface Line {
  kind: 'you' | 'agent' | 'tool' | 'notice' | 'error';
  text: string;
}

/**
 * Chat with one agent: the answer streams in as the host relays it (text, tool lines, approvals);
 * while a turn runs, Steer sends a message into it and Interrupt stops it.
 */
export function ChatPage({ agent }: { agent: string | undefined }) {
  const status = useLoad<MeshStatus>('/api/status');
  const agents = status.data?.agents.map((entry) => entry.name) ?? [];
  const chosen = agent ?? agents[0];
  const [lines, setLines] = useState<Line[]>([]);
  const [draft, setDraft] = useState('');
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const conversation = useRef<string | undefined>(undefined);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setLines([]);
    conversation.current = undefined;
  }, [chosen]);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [lines]);

  const add = (line: Line) => setLines((current) => [...current, line]);
  const appendAgent = (text: string) =>
    setLines((current) => {
      const last = current[current.length - 1];
      if (last?.kind === 'agent') return [...current.slice(0, -1), { kind: 'agent', text: last.text + text }];
      return [...current, { kind: 'agent', text }];
    });

  const report = (failure: unknown) =>
    setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));

  const send = async (mode: 'followup' | 'steer') => {
    if (!chosen || draft.trim() === '') return;
    const message = draft.trim();
    setDraft('');
    setError(undefined);
    add({ kind: 'you', text: mode === 'steer' ? `(steer) ${message}` : message });
    if (mode === 'steer' && running) {
      // The steer joins the running turn; its answer arrives on that turn's stream.
      await call('POST', `/api/agents/${encodeURIComponent(chosen)}/chat`, {
        message,
        mode: 'steer',
        ...(conversation.current ? { conversation_id: conversation.current } : {}),
      })
        .then((response) => response.body?.cancel())
        .catch(report);
      return;
    }
    setRunning(true);
    try {
      const response = await call('POST', `/api/agents/${encodeURIComponent(chosen)}/chat`, {
        message,
        ...(conversation.current ? { conversation_id: conversation.current } : {}),
      });
      for await (const frame of readSse(response)) {
        const event = JSON.parse(frame.data) as Record<string, unknown>;
        if (event.type === 'text_delta') appendAgent(String(event.text));
        else if (event.type === 'tool_start')
          add({ kind: 'tool', text: `⚙ ${String(event.name)} ${JSON.stringify(event.input).slice(0, 200)}` });
        else if (event.type === 'tool_result')
          add({
            kind: 'tool',
            text: `${event.is_error ? '✗' : '✓'} ${(typeof event.output === 'string' ? event.output : JSON.stringify(event.output)).slice(0, 300)}`,
          });
        else if (event.type === 'approval')
          add({ kind: 'notice', text: `approval ${String(event.tool)}: ${String(event.state)}` });
        else if (event.type === 'notice') add({ kind: 'notice', text: String(event.message) });
        else if (event.type === 'error')
          add({ kind: 'error', text: `${String(event.code)}: ${String(event.message)}` });
        else if (event.type === 'done') conversation.current = String(event.conversation_id);
      }
    } catch (failure) {
      report(failure);
    } finally {
      setRunning(false);
    }
  };

  const interrupt = async () => {
    if (!chosen) return;
    await postJson(`/api/agents/${encodeURIComponent(chosen)}/interrupt`).catch(report);
  };

  return (
    <section class="chat" aria-label="Chat">
      <h2>
        <label for="agent-pick">Chat with</label>{' '}
        <select
          id="agent-pick"
          value={chosen}
          onChange={(event) => {
            location.hash = `#/chat/${encodeURIComponent(event.currentTarget.value)}`;
          }}
        >
          {agents.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </h2>
      <div class="transcript" aria-live="polite" data-testid="transcript">
        {lines.map((line, index) => (
          <p key={index} class={`line line-${line.kind}`}>
            {line.text}
          </p>
        ))}
        <div ref={end} />
      </div>
      <ErrorBox error={error} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send(running ? 'steer' : 'followup');
        }}
      >
        <label for="message" class="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          value={draft}
          placeholder={running ? 'Steer the running turn…' : 'Message'}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        <div class="buttons">
          <button type="submit">{running ? 'Steer' : 'Send'}</button>
          <button type="button" onClick={interrupt} disabled={!running}>
            Interrupt
          </button>
        </div>
      </form>
    </section>
  );
}
