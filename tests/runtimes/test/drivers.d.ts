// The two runtime drivers, as far as these suites use them (this repository's Node is 20,
// whose types have neither).
declare module 'node:sqlite' {
  import type { Connection } from './suite.ts';
  export class DatabaseSync implements Connection {
    constructor(path: string);
    exec: Connection['exec'];
    prepare: Connection['prepare'];
    close(): void;
  }
}
declare module 'bun:sqlite' {
  import type { Connection } from './suite.ts';
  export class Database implements Connection {
    constructor(path: string);
    exec: Connection['exec'];
    prepare: Connection['prepare'];
    close(): void;
  }
}
