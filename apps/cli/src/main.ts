#!/usr/bin/env node
/** The `minca` bin. */
import { run } from './program.js';

process.exitCode = await run(process.argv.slice(2));
