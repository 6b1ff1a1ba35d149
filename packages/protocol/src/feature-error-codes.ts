/**
 * The error codes of the browser, the chat channels, workflows and approvals: part of
 * {@link ERROR_CODES} (error-codes.ts), kept here so each file stays readable.
 */
export const FEATURE_ERROR_CODES = {
  BROWSER_STALE_REF: {
    retryable: false,
    status: 409,
    summary: 'a ref from an older snapshot (the page navigated or the element is gone); take a new snapshot',
  },
  BROWSER_REF_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'a ref no snapshot of this session gave out, or a CSS selector that matches nothing',
  },
  BROWSER_EGRESS_REFUSED: {
    retryable: false,
    status: 403,
    summary: "the egress proxy refused the URL (not on the agent's egress allowlist, or a private address)",
  },
  BROWSER_NAVIGATION_FAILED: {
    retryable: true,
    status: 502,
    summary: 'the page could not be loaded (DNS, connection, TLS or HTTP failure); the message names the URL',
  },
  BROWSER_TIMEOUT: {
    retryable: true,
    status: 504,
    summary: 'a page load or an action did not finish in time; the message names the URL or element',
  },
  BROWSER_ACTION_FAILED: {
    retryable: false,
    status: 422,
    summary: 'an action on an element failed (not visible, not editable, wrong element kind)',
  },
  BROWSER_LAUNCH_FAILED: {
    retryable: true,
    status: 503,
    summary: 'Chromium could not be started, or the CDP endpoint could not be reached',
  },
  BROWSER_TAB_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'no open tab with that number',
  },
  BROWSER_PATH_INVALID: {
    retryable: false,
    status: 400,
    summary: 'an upload, download or screenshot path is outside the workspace or does not exist',
  },
  CHAN_TOKEN_REJECTED: {
    retryable: false,
    status: 502,
    summary: "Telegram rejected the channel's bot token (getMe answered 401); check channels.telegram.token",
  },
  CHAN_UNREACHABLE: {
    retryable: true,
    status: 503,
    summary: 'the chat service (Telegram) could not be reached, or kept answering 5xx',
  },
  CHAN_API_ERROR: {
    retryable: false,
    status: 502,
    summary: 'the chat service (Telegram) refused a request',
  },
  CHAN_USER_UNKNOWN: { retryable: false, status: 404, summary: 'no paired channel user with that id' },
  CHAN_WEBHOOK_INVALID: {
    retryable: false,
    status: 400,
    summary: 'the channel webhook options are not usable (URL, secret token or listen address)',
  },
  CHAN_DEAD_LETTER_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'no dead letter with that id (`openlegion channels dead-letters` lists them)',
  },
  WORKFLOW_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a workflow file failed validation (each problem located as file:line:col)',
  },
  WORKFLOW_UNKNOWN: { retryable: false, status: 404, summary: 'no workflow file of that name' },
  WORKFLOW_RUN_UNKNOWN: { retryable: false, status: 404, summary: 'no workflow run of that id' },
  WORKFLOW_INPUT_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a run input is missing, unknown or of the wrong type',
  },
  WORKFLOW_NOT_WAITING: {
    retryable: false,
    status: 409,
    summary: 'the step is not waiting for an approval (or the run has ended)',
  },
  APPROVAL_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'nothing waits for approval under that id (it was decided, timed out or never existed)',
  },
  APPROVAL_TOO_MANY: {
    retryable: true,
    status: 429,
    summary: 'the agent already holds approvals.max_pending_per_agent tool calls waiting for the operator',
  },
  WORKFLOW_RUN_FINISHED: { retryable: false, status: 409, summary: 'the run has already ended' },
  WORKFLOW_EXPRESSION_FAILED: {
    retryable: false,
    status: 422,
    summary: "a when or for_each expression could not be evaluated on the run's values",
  },
  WORKFLOW_TEMPLATE_FAILED: {
    retryable: false,
    status: 422,
    summary: "a step's task refers to a value the run does not have (yet)",
  },
  WORKFLOW_OUTPUT_INVALID: {
    retryable: true,
    status: 502,
    summary: "a step's output is not JSON matching the schema the step gives",
  },
  WORKFLOW_STEP_TIMEOUT: {
    retryable: true,
    status: 504,
    summary: 'a step did not finish within its timeout',
  },
  WORKFLOW_TIMEOUT: { retryable: false, status: 504, summary: 'the run did not finish within its timeout' },
  WORKFLOW_REJECTED: { retryable: false, status: 409, summary: 'the operator rejected an approval step' },
} as const satisfies Record<string, { retryable: boolean; status: number; summary: string }>;
