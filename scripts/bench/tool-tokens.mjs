// tool-tokens: tool-schema tokens per LLM call on the default profile (`full`, lossless context),
// counted with cl100k (js-tiktoken) on the JSON of the `tools` array the agent sends, built by the
// real code (packages/agent/dist: createAgentTools, the lcm tools, skill_view, selectTools,
// ToolLoader, toolDefinition). Side by side:
// - `all` (every permitted schema on every call, as before issue 21) and `on_demand` (the default:
//   core tools + tool_search), with nothing extra installed;
// - the same with 2 MCP servers' worth of tools (12 synthetic tools with realistic schemas, group
//   `mcp`, added to the permitted list as the MCP client registers them) and 3 skills (the two
//   bundled ones and a workspace one), whose prompt section is counted too;
// - on_demand after the model loaded the whole browser group (a heavy conversation).
// Target (issue 21): on_demand ≤ 2,000 tokens of tool schemas per call with the MCP tools and
// skills installed. Needs `pnpm build` first.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const agentDist = (file) => path.join(ROOT, 'packages/agent/dist', file);
const TARGETS = { on_demand_with_mcp_and_skills_at_most: 2_000 };

export async function main() {
  if (!existsSync(agentDist('tool-registry/turn-toolset.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const m = await loadModules();
  const encoder = new m.Tiktoken(m.cl100k);
  const tokens = (tools) => encoder.encode(JSON.stringify(tools.map(m.toolDefinition)), [], []).length;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-tool-tokens-'));
  try {
    const workspace = path.join(dataDir, 'workspace');
    cpSync(
      path.join(ROOT, 'packages/agent/test/fixtures/skills/workspace/skills'),
      path.join(workspace, 'skills'),
      {
        recursive: true,
      },
    );
    const self = m.agentSelfSchema.parse({
      agent: 'a',
      mesh: 'm',
      role: '',
      model: 'openai/gpt-4o',
      soul: '',
    });
    const agentTools = m.createAgentTools({
      memory: () => {
        throw new Error('not opened in the bench');
      },
      mesh: { meshUrl: 'http://127.0.0.1:9', token: 'bench' },
      browser: self.browser,
      dataDir,
    });
    const lcm = m.createLcmTools(() => {
      throw new Error('not opened in the bench');
    });
    const skills = () =>
      m.loadSkills(
        m.skillRoots({ workspace, bundledDir: m.bundledSkillsDir(agentDist('skills/index.js')) }),
        {
          platform: process.platform,
          env: process.env,
          disabled: [],
        },
      );
    const registered = [...agentTools.tools, ...lcm];
    const before = m.selectTools('full', registered).tools.filter((tool) => tool.group !== 'skills');
    const permitted = m.selectTools('full', [...registered, m.createSkillViewTool(skills)]).tools;
    const withMcp = [...permitted, ...syntheticMcpTools(m.z)];
    const snapshot = await skills();
    const skillsSection = m.skillsPrompt(snapshot.skills, self.skills.prompt_chars);
    const skillsTokens = encoder.encode(skillsSection, [], []).length;
    const onDemand = (tools, conversationId) =>
      new m.ToolLoader().toolset({
        conversationId,
        permitted: tools,
        pinned: [],
        mode: 'on_demand',
        history: [],
      });
    const plain = onDemand(permitted, 'plain');
    const full = onDemand(withMcp, 'full');
    const browsing = onDemand(withMcp, 'browsing');
    await browsing.permitted
      .get('tool_search')
      .run({ query: 'browser' }, { workspace, signal: AbortSignal.timeout(5_000) });
    await agentTools.close();
    const metrics = {
      tools_permitted_default_profile: permitted.length,
      tools_permitted_with_mcp: withMcp.length,
      skills_installed: snapshot.skills.map((skill) => skill.name),
      before_issue_21_all_tools: { tools: before.length, tokens: tokens(before) },
      all_tools: { tools: permitted.length, tokens: tokens(permitted) },
      on_demand: { tools: plain.offered().length, tokens: tokens(plain.offered()) },
      all_tools_with_mcp_and_skills: { tools: withMcp.length, tokens: tokens(withMcp) },
      on_demand_with_mcp_and_skills: {
        tools: full.offered().length,
        tokens: tokens(full.offered()),
        offered: full.offered().map((tool) => tool.name),
      },
      on_demand_after_loading_browser_group: {
        tools: browsing.offered().length,
        tokens: tokens(browsing.offered()),
      },
      skills_prompt_section: { chars: skillsSection.length, tokens: skillsTokens },
      method:
        'cl100k tokens of JSON.stringify(tools) as sent (function name, description, JSON Schema), built by the ' +
        "agent's own code on the default profile (full) with lossless context (lcm tools). MCP: 12 synthetic tools " +
        '(github__*, postgres__*) with realistic zod schemas in group mcp, added after the profile as the MCP client ' +
        'registers them. Skills: 2 bundled + 1 in the workspace (test fixture); their prompt section is reported apart ' +
        '(it is prompt text, not schema). before_issue_21_all_tools: every schema without skill_view or MCP.',
    };
    const pass =
      metrics.on_demand_with_mcp_and_skills.tokens <= TARGETS.on_demand_with_mcp_and_skills_at_most;
    const file = writeResults('tool-tokens', metrics, TARGETS, pass);
    console.log(
      `tool-tokens: before ${metrics.before_issue_21_all_tools.tokens} (${before.length} tools); ` +
        `all ${metrics.all_tools.tokens}, on_demand ${metrics.on_demand.tokens}; with 12 MCP tools + 3 skills: ` +
        `all ${metrics.all_tools_with_mcp_and_skills.tokens}, on_demand ${metrics.on_demand_with_mcp_and_skills.tokens} ` +
        `(target ≤ ${TARGETS.on_demand_with_mcp_and_skills_at_most}; skills section +${skillsTokens}); after loading ` +
        `the browser group ${metrics.on_demand_after_loading_browser_group.tokens} → ${pass ? 'PASS' : 'FAIL'} ${file}`,
    );
    return pass ? 0 : 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function loadModules() {
  const require = createRequire(path.join(ROOT, 'packages/agent/package.json'));
  const agent = await import(agentDist('index.js'));
  const skills = await import(agentDist('skills/index.js'));
  const { createLcmTools } = await import(agentDist('context/lossless/index.js'));
  const { ToolLoader } = await import(agentDist('tool-registry/turn-toolset.js'));
  const { toolDefinition } = await import(agentDist('loop/tool-arguments.js'));
  const { agentSelfSchema } = await import(require.resolve('@openlegion/protocol'));
  const { Tiktoken } = await import(require.resolve('js-tiktoken/lite'));
  const { default: cl100k } = await import(require.resolve('js-tiktoken/ranks/cl100k_base'));
  const { z } = await import(require.resolve('zod'));
  return {
    ...agent,
    ...skills,
    createLcmTools,
    ToolLoader,
    toolDefinition,
    agentSelfSchema,
    Tiktoken,
    cl100k,
    z,
  };
}

/** Two MCP servers' worth of tools, named `server__tool`, with schemas like real servers publish. */
function syntheticMcpTools(z) {
  const repo = z.string().describe('Repository as owner/name, e.g. octo-org/api');
  const tool = (name, description, input) => ({
    name,
    group: 'mcp',
    description,
    input: z.object(input),
    run: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  });
  return [
    tool('github__create_issue', 'Create a new issue in a GitHub repository.', {
      repo,
      title: z.string().describe('Issue title'),
      body: z.string().optional().describe('Issue body in Markdown'),
      labels: z.array(z.string()).optional().describe('Labels to apply'),
      assignees: z.array(z.string()).optional().describe('Usernames to assign'),
    }),
    tool('github__search_issues', 'Search issues and pull requests with GitHub search syntax.', {
      query: z.string().describe('Search query, e.g. "is:open label:bug repo:owner/name"'),
      sort: z.enum(['comments', 'reactions', 'created', 'updated']).optional().describe('Sort field'),
      order: z.enum(['asc', 'desc']).optional().describe('Sort order'),
      per_page: z.number().int().min(1).max(100).optional().describe('Results per page (max 100)'),
      page: z.number().int().min(1).optional().describe('Page number'),
    }),
    tool('github__get_file_contents', 'Get the contents of a file or directory from a repository.', {
      repo,
      path: z.string().describe('Path to the file or directory'),
      ref: z.string().optional().describe('Branch, tag or commit SHA'),
    }),
    tool('github__list_pull_requests', 'List pull requests in a repository.', {
      repo,
      state: z.enum(['open', 'closed', 'all']).optional().describe('Filter by state'),
      base: z.string().optional().describe('Filter by base branch'),
      per_page: z.number().int().min(1).max(100).optional().describe('Results per page'),
    }),
    tool('github__create_pull_request', 'Open a pull request.', {
      repo,
      title: z.string().describe('Pull request title'),
      head: z.string().describe('The branch with your changes'),
      base: z.string().describe('The branch to merge into'),
      body: z.string().optional().describe('Description in Markdown'),
      draft: z.boolean().optional().describe('Open as a draft'),
    }),
    tool('github__add_issue_comment', 'Add a comment to an issue or pull request.', {
      repo,
      issue_number: z.number().int().describe('Issue or pull request number'),
      body: z.string().describe('Comment text in Markdown'),
    }),
    tool('postgres__query', 'Run a read-only SQL query and return the rows.', {
      sql: z.string().describe('The SQL statement (SELECT only)'),
      params: z
        .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
        .optional()
        .describe('Positional parameters $1..$n'),
      max_rows: z.number().int().min(1).max(10_000).optional().describe('Most rows returned'),
    }),
    tool('postgres__list_schemas', 'List the schemas of the database.', {}),
    tool('postgres__list_tables', 'List the tables of a schema with their row estimates.', {
      schema: z.string().optional().describe('Schema name; default public'),
    }),
    tool('postgres__describe_table', 'Describe the columns, types, indexes and constraints of a table.', {
      table: z.string().describe('Table name, optionally schema-qualified'),
    }),
    tool('postgres__explain', 'Show the query plan of a statement (EXPLAIN, optionally ANALYZE).', {
      sql: z.string().describe('The statement to explain'),
      analyze: z.boolean().optional().describe('Run it to get real timings (read-only statements only)'),
      format: z.enum(['text', 'json']).optional().describe('Plan format'),
    }),
    tool('postgres__sample_rows', 'Return a few random rows of a table.', {
      table: z.string().describe('Table name'),
      limit: z.number().int().min(1).max(100).optional().describe('How many rows (default 10)'),
    }),
  ];
}
