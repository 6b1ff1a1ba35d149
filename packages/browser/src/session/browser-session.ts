import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import type { BrowserContext, Page } from 'playwright-core';
import { RefRegistry } from '../snapshot/ref-registry.js';
import type { BrowserLauncher, LaunchedBrowser } from './browser-launcher.js';
import type { ProxySettings } from './launch-options.js';
import { saveDownload } from './save-download.js';
import { SessionEventLog } from './session-events.js';

/** One open tab; ids count up from 1 and are never reused in a session. */
export interface Tab {
  id: number;
  page: Page;
}

/** How a {@link BrowserSession} behaves. */
export interface BrowserSessionOptions {
  launcher: BrowserLauncher;
  /** Close the browser after this long without a tool call (default 5 min). */
  idleTimeoutMs?: number;
  clock?: Clock;
  /** Page loads (default 30 s). */
  navigationTimeoutMs?: number;
  /** Actions on elements (default 10 s). */
  actionTimeoutMs?: number;
  /** Traffic goes through an egress proxy: its refusals are reported as such. */
  proxied?: boolean;
  /** That proxy, asked why when Chromium only says a tunnel failed. */
  proxy?: ProxySettings;
}

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
/** Longest a result waits for a tab Chromium said is opening. */
const POPUP_WAIT_MS = 5_000;
const PAGE_CLOSE_GRACE_MS = 250;

/**
 * One agent's browser: launched on first use, closed when idle, relaunched after a crash (the
 * next result says so), with its tabs, its refs and a log of what happened (dialogs, downloads,
 * new tabs). Calls are serialised: a page is one thing at a time.
 */
export class BrowserSession {
  readonly refs = new RefRegistry();
  readonly events = new SessionEventLog();
  readonly navigationTimeoutMs: number;
  readonly actionTimeoutMs: number;
  readonly proxied: boolean;
  readonly proxy: ProxySettings | undefined;
  /** The agent's workspace, where downloads, screenshots and PDFs go (set by each tool run). */
  workspace = process.cwd();

  private readonly options: BrowserSessionOptions;
  private readonly clock: Clock;
  private browser?: LaunchedBrowser;
  private readonly tabs = new Map<number, Tab>();
  /** Each open tab's last loaded URL, to reopen after a crash or an idle close. */
  private readonly tabUrls = new Map<number, string>();
  private readonly crashedTabs = new Set<number>();
  private activeTabId = 0;
  private nextTabId = 1;
  private closingOnPurpose = false;
  private openingTab = false;
  /** URLs to reopen, and why, after the browser went away. */
  private restore?: { urls: string[]; reason: 'crashed' | 'idle' };
  private readonly notes: string[] = [];
  private idleTimer?: Timer;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: BrowserSessionOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.navigationTimeoutMs = options.navigationTimeoutMs ?? 30_000;
    this.actionTimeoutMs = options.actionTimeoutMs ?? 10_000;
    this.proxied = options.proxied ?? false;
    this.proxy = this.proxied ? options.proxy : undefined;
  }

  /** Whether Chromium is running now (it starts on the first tool call). */
  get isRunning(): boolean {
    return this.browser !== undefined;
  }

  /** Run one tool call: serialised, with the browser up and the idle timer reset. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      this.idleTimer?.cancel();
      try {
        await this.ensureBrowser();
        return await work();
      } finally {
        this.armIdleTimer();
      }
    });
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves when every queued call (and an idle close under way) has finished. */
  async settled(): Promise<void> {
    await this.queue;
  }

  /** Notes for the model gathered since the last call (relaunch after a crash, idle restart). */
  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  /** The tab actions go to; opens one if none is open. */
  async activeTab(): Promise<Tab> {
    const tab = this.tabs.get(this.activeTabId);
    if (tab && this.crashedTabs.has(tab.id)) return this.replaceCrashedTab(tab);
    if (tab && !tab.page.isClosed()) return tab;
    const first = [...this.tabs.values()].find((candidate) => !candidate.page.isClosed());
    if (first) {
      this.activeTabId = first.id;
      return first;
    }
    return this.openTab();
  }

  /** A tab by id, or `BROWSER_TAB_UNKNOWN`. */
  tab(id: number): Tab {
    const tab = this.tabs.get(id);
    if (!tab) {
      const open = [...this.tabs.keys()].join(', ') || 'none';
      throw new OpenLegionError('BROWSER_TAB_UNKNOWN', `no tab ${id}; open tabs: ${open}`, {
        details: { tab: id },
      });
    }
    return tab;
  }

  /** Open tabs in order. */
  listTabs(): Tab[] {
    return [...this.tabs.values()];
  }

  get activeId(): number {
    return this.activeTabId;
  }

  /** Make a tab the one actions go to. */
  async switchTab(id: number): Promise<Tab> {
    const tab = this.tab(id);
    this.activeTabId = id;
    await tab.page.bringToFront();
    return tab;
  }

  /** A new tab (active from now on). */
  async openTab(): Promise<Tab> {
    const context = await this.ensureBrowser();
    const tab = await this.newTab(context);
    this.activeTabId = tab.id;
    return tab;
  }

  /** A tab whose renderer crashed cannot be used again: reopen its page in a new tab. */
  private async replaceCrashedTab(crashed: Tab): Promise<Tab> {
    const url = this.tabUrls.get(crashed.id) ?? crashed.page.url();
    this.crashedTabs.delete(crashed.id);
    this.tabUrls.delete(crashed.id);
    await crashed.page.close().catch(() => undefined);
    this.forgetTab(crashed.id);
    const tab = await this.openTab();
    const loaded = /^https?:/.test(url)
      ? await tab.page.goto(url, { waitUntil: 'domcontentloaded' }).then(
          () => true,
          () => false,
        )
      : false;
    this.notes.push(
      `Tab ${crashed.id} had crashed; ${loaded ? `reopened ${url}` : 'opened a blank page'} as tab ${tab.id}. ` +
        'Refs from before are stale — take a new snapshot.',
    );
    return tab;
  }

  /** A page we open ourselves (the `page` event must not report it as opened by the page). */
  private async newTab(context: BrowserContext): Promise<Tab> {
    this.openingTab = true;
    try {
      const page = await context.newPage();
      return this.tabs.get(this.tabIdOf(page)) ?? this.adopt(page, false);
    } finally {
      this.openingTab = false;
    }
  }

  /** Close a tab; the active tab moves to the last one left. */
  async closeTab(id: number): Promise<void> {
    const tab = this.tab(id);
    this.tabUrls.delete(id);
    await tab.page.close();
    this.forgetTab(tab.id);
  }

  /** Close the browser (the agent calls this at shutdown). Safe to call twice. */
  async close(): Promise<void> {
    this.idleTimer?.cancel();
    this.restore = undefined;
    await this.shutDown();
  }

  private async ensureBrowser(): Promise<BrowserContext> {
    if (this.browser) return this.browser.context;
    const launched = await this.options.launcher();
    this.browser = launched;
    const { context } = launched;
    context.setDefaultNavigationTimeout(this.navigationTimeoutMs);
    context.setDefaultTimeout(this.actionTimeoutMs);
    context.on('close', () => this.onContextClosed(launched));
    context.on('page', (page) => {
      if (!this.tabIdOf(page)) this.adopt(page, !this.openingTab);
    });
    for (const page of context.pages()) this.adopt(page, false);
    await this.reopenAfterLoss(context);
    return context;
  }

  private async reopenAfterLoss(context: BrowserContext): Promise<void> {
    const restore = this.restore;
    this.restore = undefined;
    if (!restore) return;
    const reopened: string[] = [];
    for (const url of restore.urls.filter((candidate) => /^https?:/.test(candidate))) {
      const blank = [...this.tabs.values()].find((candidate) => candidate.page.url() === 'about:blank');
      const tab = reopened.length === 0 && blank ? blank : await this.newTab(context);
      const loaded = await tab.page.goto(url, { waitUntil: 'domcontentloaded' }).then(
        () => true,
        () => false,
      );
      reopened.push(`tab ${tab.id} ${url}${loaded ? '' : ' (did not load)'}`);
    }
    const last = [...this.tabs.values()].at(-1);
    if (last) this.activeTabId = last.id;
    const why =
      restore.reason === 'crashed'
        ? 'The browser had crashed (or was closed from outside) and was relaunched'
        : 'The browser had been closed after being idle and was started again';
    this.notes.push(
      `${why}${reopened.length ? `; reopened ${reopened.join(', ')}` : ''}. ` +
        'Refs from before are stale — take a new snapshot.',
    );
  }

  private adopt(page: Page, openedByPage: boolean): Tab {
    const tab: Tab = { id: this.nextTabId++, page };
    this.tabs.set(tab.id, tab);
    tabIds.set(page, tab.id);
    if (!this.activeTabId) this.activeTabId = tab.id;
    page.on('domcontentloaded', () => {
      this.tabUrls.set(tab.id, page.url());
      this.refs.clearTab(tab.id);
      this.events.push({ kind: 'navigated', tabId: tab.id, url: page.url() });
    });
    page.on('dialog', (dialog) => {
      // Alerts and confirms would block the page forever; accept and report them.
      const type = dialog.type();
      const answer =
        type === 'beforeunload' || type === 'alert' || type === 'confirm' ? 'accepted' : 'dismissed';
      this.events.push({ kind: 'dialog', tabId: tab.id, type, message: dialog.message(), answer });
      void (answer === 'accepted' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
    });
    page.on('download', (download) =>
      this.events.track(
        saveDownload(download, this.workspace, tab.id).then((event) => this.events.push(event)),
      ),
    );
    page.on('crash', () => {
      this.crashedTabs.add(tab.id);
      this.events.push({ kind: 'tab-crashed', tabId: tab.id, url: page.url() });
      this.refs.clearTab(tab.id);
    });
    page.on('close', () => {
      this.forgetTab(tab.id);
      // Pages also close when the browser dies, just before the context does: forget the URL
      // only once the context has outlived the page (else it is reopened after the crash).
      const context = this.browser?.context;
      setTimeout(() => {
        if (this.browser && this.browser.context === context) this.tabUrls.delete(tab.id);
      }, PAGE_CLOSE_GRACE_MS).unref();
    });
    this.holdResultsForPopups(page);
    if (openedByPage) {
      this.events.push({ kind: 'tab-opened', tabId: tab.id, url: page.url() });
      // A link or script opened it: the model meant to go there.
      this.activeTabId = tab.id;
    }
    return tab;
  }

  /**
   * Chromium says a page opens a window (a link to a new tab, `window.open`) while the click is
   * still being handled, but Playwright announces the new page only once it has set it up, which
   * under load comes after the opener has settled. Hold the action's result until it does, so the
   * model hears of the tab it now stands in.
   */
  private holdResultsForPopups(page: Page): void {
    void page
      .context()
      .newCDPSession(page)
      .then(async (cdp) => {
        cdp.on('Page.windowOpen', () =>
          this.events.track(page.waitForEvent('popup', { timeout: POPUP_WAIT_MS }).catch(() => undefined)),
        );
        await cdp.send('Page.enable');
      })
      .catch(() => undefined);
  }

  private forgetTab(id: number): void {
    this.crashedTabs.delete(id);
    if (!this.tabs.delete(id)) return;
    this.refs.clearTab(id);
    this.events.push({ kind: 'tab-closed', tabId: id });
    if (this.activeTabId === id) this.activeTabId = [...this.tabs.keys()].at(-1) ?? 0;
  }

  private tabIdOf(page: Page): number {
    return tabIds.get(page) ?? 0;
  }

  private onContextClosed(launched: LaunchedBrowser): void {
    if (this.browser !== launched) return;
    const urls = [...this.tabUrls.values()];
    this.tabUrls.clear();
    this.browser = undefined;
    this.tabs.clear();
    this.activeTabId = 0;
    this.refs.clearAll();
    if (!this.closingOnPurpose) this.restore = { urls, reason: 'crashed' };
  }

  private armIdleTimer(): void {
    this.idleTimer?.cancel();
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.idleTimer = this.clock.setTimeout(() => {
      void this.enqueue(() => this.closeIdle());
    }, idleMs);
  }

  private async closeIdle(): Promise<void> {
    if (!this.browser) return;
    const urls = [...this.tabUrls.values()];
    await this.shutDown();
    this.restore = { urls, reason: 'idle' };
  }

  private async shutDown(): Promise<void> {
    const browser = this.browser;
    if (!browser) return;
    this.closingOnPurpose = true;
    try {
      await browser.close();
    } catch {
      // Already gone: nothing left to close.
    } finally {
      this.onContextClosed(browser);
      this.closingOnPurpose = false;
    }
  }
}

const tabIds = new WeakMap<Page, number>();
