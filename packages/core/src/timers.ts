/**
 * Timers, typed here because core sees no DOM or Node types. Every runtime minca supports
 * (browsers, Node, Bun, Deno) has these globals; importing them from here keeps that in one place.
 */
type Handle = unknown;
interface TimerGlobals {
  setTimeout(callback: () => void, ms?: number): Handle;
  clearTimeout(handle: Handle): void;
  setInterval(callback: () => void, ms?: number): Handle;
  clearInterval(handle: Handle): void;
}
const timers = globalThis as unknown as TimerGlobals;

export const setTimer = (callback: () => void, ms: number): Handle =>
  timers.setTimeout(callback, ms);
export const clearTimer = (handle: Handle): void => timers.clearTimeout(handle);
export const setRepeating = (callback: () => void, ms: number): Handle =>
  timers.setInterval(callback, ms);
export const clearRepeating = (handle: Handle): void => timers.clearInterval(handle);
/**
 * As {@link setRepeating}, but housekeeping: where the runtime can (Node, Bun, Deno), it does
 * not keep the process alive by itself.
 */
export const setHousekeeping = (callback: () => void, ms: number): Handle => {
  const handle = timers.setInterval(callback, ms);
  (handle as { unref?: () => void } | undefined)?.unref?.();
  return handle;
};
/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => timers.setTimeout(resolve, ms));
