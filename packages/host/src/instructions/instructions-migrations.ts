/** The instructions' schema steps (feature `instructions`). Append only: never edit a step that has shipped. */
export const INSTRUCTIONS_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE agent_instructions (
    agent TEXT NOT NULL,
    file TEXT NOT NULL CHECK (file IN ('AGENTS.md', 'SOUL.md')),
    text TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (agent, file)
  ) STRICT, WITHOUT ROWID;
  `,
];
