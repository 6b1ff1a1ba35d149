import { describe, expect, it } from 'vitest';
import { parseAgentEnv } from './agent-env.js';

const valid = { AGENT_ID: 'a', MESH_URL: 'http://10.0.0.1:8420/', MESH_TOKEN: 'tok-secret' };

function errorOf(source: Record<string, string | undefined>): Error {
  try {
    parseAgentEnv(source);
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('parseAgentEnv accepted the environment');
}

describe('parseAgentEnv', () => {
  it('applies the contract defaults for port, host and data dir', () => {
    const env = parseAgentEnv(valid);
    expect(env).toMatchObject({ AGENT_PORT: 8400, AGENT_HOST: '0.0.0.0', AGENT_DATA_DIR: '/data' });
  });

  it('drops the trailing slash of MESH_URL', () => {
    expect(parseAgentEnv(valid).MESH_URL).toBe('http://10.0.0.1:8420');
  });

  it('names a missing AGENT_ID', () => {
    expect(errorOf({ ...valid, AGENT_ID: undefined }).message).toContain('AGENT_ID is required');
  });

  it('treats an empty MESH_TOKEN as missing', () => {
    expect(errorOf({ ...valid, MESH_TOKEN: '' }).message).toContain('MESH_TOKEN is required');
  });

  it('names an invalid MESH_URL', () => {
    expect(errorOf({ ...valid, MESH_URL: 'not a url' }).message).toMatch(/MESH_URL must be an http\(s\) URL/);
  });

  it('names a non-numeric AGENT_PORT', () => {
    expect(errorOf({ ...valid, AGENT_PORT: 'eighty' }).message).toContain('AGENT_PORT');
  });

  it('names every bad variable at once', () => {
    const message = errorOf({ MESH_TOKEN: 'tok-secret' }).message;
    expect([message.includes('AGENT_ID'), message.includes('MESH_URL')]).toEqual([true, true]);
  });

  it('reports with the CONFIG_INVALID code', () => {
    expect(errorOf({})).toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('never echoes a value, so the token cannot leak', () => {
    expect(errorOf({ ...valid, MESH_URL: 'tok-secret' }).message).not.toContain('tok-secret');
  });
});
