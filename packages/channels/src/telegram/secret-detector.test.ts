import { describe, expect, it } from 'vitest';
import { looksLikeSecret } from './secret-detector.js';

describe('looksLikeSecret', () => {
  it.each([
    'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
    'here is my key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx',
    'ghp_0123456789abcdefghijABCDEFGHIJklmnop',
    '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0',
    'AKIAIOSFODNN7EXAMPLE',
    'password = hunter2hunter2hunter2',
    'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5',
  ])('refuses %s', (text) => {
    expect(looksLikeSecret(text)).toBe(true);
  });

  it.each([
    'what is the capital of France?',
    'please read src/packages/channels/telegram-channel.ts',
    'commit 3f1c2a9e0b4d5f6a7b8c9d0e1f2a3b4c5d6e7f8a',
    'https://example.com/some/LongPath/With/Numbers123',
    '/pair ABCD2345',
  ])('lets %s through', (text) => {
    expect(looksLikeSecret(text)).toBe(false);
  });
});
