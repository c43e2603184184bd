import { isMincaError } from '../src/errors.js';

/** The code of the `MincaError` `f` throws or rejects with (else its text), or `'none'`. */
export async function errorCode(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (error) {
    return isMincaError(error) ? error.code : String(error);
  }
  return 'none';
}
