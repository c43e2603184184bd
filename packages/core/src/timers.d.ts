// Timers and the few globals every runtime minca supports has (browsers, Node, Bun, Deno).
// Core sees no DOM or Node types, so it declares just these.
declare function setTimeout(callback: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function setInterval(callback: () => void, ms?: number): unknown;
declare function clearInterval(handle: unknown): void;
