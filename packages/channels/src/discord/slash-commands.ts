/** Option type STRING of an application command. */
const STRING = 3;
/** Where the commands may be used: 0 a server, 1 the bot's DM. */
const CONTEXTS = [0, 1];

const command = (name: string, description: string, option?: { name: string; description: string }) => ({
  name,
  description,
  type: 1,
  contexts: CONTEXTS,
  integration_types: [0],
  ...(option
    ? { options: [{ type: STRING, name: option.name, description: option.description, required: true }] }
    : {}),
});

/**
 * The slash commands registered at start: the same commands as the text ones (`/use writer` typed
 * as text works too), run by the same handler. Owner-only ones answer others with a refusal.
 */
export const SLASH_COMMANDS = [
  command('help', 'what the bot can do'),
  command('agents', 'list the agents (press one to talk to it)'),
  command('use', 'talk to another agent', { name: 'name', description: 'the agent' }),
  command('status', 'your agent and its state'),
  command('pair', 'pair with the bot (in a DM)', {
    name: 'code',
    description: 'the code the owner gave you',
  }),
  command('steer', 'hand a message to the running turn (owner)', {
    name: 'text',
    description: 'the message',
  }),
  command('broadcast', 'send a message to every agent (owner)', { name: 'text', description: 'the message' }),
  command('reset', 'start a new conversation with your agent (owner)'),
  command('approvals', 'what waits for your approval (owner)'),
];
