import { describe, expect, it } from 'vitest';
import { isMincaError, MincaError } from '../src/index.js';

describe('MincaError', () => {
  it('carries a code and a cause', () => {
    const cause = new Error('disk');
    const error = new MincaError('storage', 'write failed', { cause });
    expect(isMincaError(error, 'storage')).toBe(true);
    expect(isMincaError(error, 'closed')).toBe(false);
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('MincaError');
  });
});
