import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { resume, session, signOut } from './api';
import { closeLive } from './live';
import { ChatPage } from './pages/chat';
import { CostsPage } from './pages/costs';
import { FleetPage } from './pages/fleet';
import { LoginPage } from './pages/login';
import { BlackboardPage, CronPage, MemoryPage, ModelsPage, PubsubPage, VaultPage } from './pages/more';
import { TracesPage } from './pages/traces';
import { WorkflowsPage } from './pages/workflows';
import './style.css';

const PAGES = [
  ['fleet', 'Fleet'],
  ['chat', 'Chat'],
  ['costs', 'Costs'],
  ['traces', 'Traces'],
  ['workflows', 'Workflows'],
  ['blackboard', 'Blackboard'],
  ['pubsub', 'Pub/sub'],
  ['cron', 'Cron'],
  ['memory', 'Memory'],
  ['vault', 'Vault'],
  ['models', 'Models'],
] as const;

/** `#/chat/writer` → ['chat', 'writer']: hash routes, so the host serves one page. */
function route(): [string, string | undefined] {
  const [, page = 'fleet', arg] = location.hash.split('/');
  return [page, arg === undefined ? undefined : decodeURIComponent(arg)];
}

function App() {
  const [state, setState] = useState<'checking' | 'in' | 'out'>('checking');
  const [reason, setReason] = useState<string | null>(null);
  const [[page, arg], setRoute] = useState(route());
  useEffect(() => {
    session.onSignedOut = (message) => {
      closeLive();
      setReason(message);
      setState('out');
    };
    void resume().then((live) => setState(live ? 'in' : 'out'));
    const onHash = () => setRoute(route());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (state === 'checking') return <p>Loading…</p>;
  if (state === 'out')
    return (
      <LoginPage
        reason={reason}
        onSignedIn={() => {
          setReason(null);
          setState('in');
        }}
      />
    );
  return (
    <>
      <header>
        <h1>OpenLegion</h1>
        <nav aria-label="Pages">
          {PAGES.map(([id, label]) => (
            <a key={id} href={`#/${id}`} aria-current={id === page ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="signout"
          onClick={async () => {
            await signOut();
            closeLive();
            setState('out');
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <Page page={page} arg={arg} />
      </main>
    </>
  );
}

function Page({ page, arg }: { page: string; arg: string | undefined }) {
  switch (page) {
    case 'chat':
      return <ChatPage agent={arg} />;
    case 'costs':
      return <CostsPage />;
    case 'traces':
      return <TracesPage id={arg} />;
    case 'workflows':
      return <WorkflowsPage run={arg} />;
    case 'blackboard':
      return <BlackboardPage />;
    case 'pubsub':
      return <PubsubPage />;
    case 'cron':
      return <CronPage />;
    case 'memory':
      return <MemoryPage />;
    case 'vault':
      return <VaultPage />;
    case 'models':
      return <ModelsPage />;
    default:
      return <FleetPage />;
  }
}

const root = document.getElementById('app');
if (root) render(<App />, root);
