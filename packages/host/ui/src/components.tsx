import type { ComponentChildren } from 'preact';
import type { ApiError } from './api';

export function ErrorBox({ error }: { error: ApiError | string | undefined }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : `${error.code}: ${error.message}`;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{state}</span>;
}
