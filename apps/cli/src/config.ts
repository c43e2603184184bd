/**
 * Settings come from flags, then the environment, then a config file, in that order: the first
 * that gives a value wins. The file is JSON, `<home>/config.json` unless `--config` or
 * `MINCA_CONFIG` names another; a missing file is no settings, a broken one is an error.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError, EXIT } from './cli-error.js';

export type ConfigFile = Record<string, unknown>;

/** Where the account lives: `--home`, `MINCA_HOME`, or `~/.minca`. */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag ?? env.MINCA_HOME ?? join(homedir(), '.minca'));
}

/** Reads the config file: `--config`, `MINCA_CONFIG`, or `<home>/config.json`. */
export function readConfigFile(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
): ConfigFile {
  const named = flag ?? env.MINCA_CONFIG;
  const path = resolve(named ?? join(home, 'config.json'));
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT' && named === undefined) return {};
    throw new CliError(EXIT.usage, `cannot read the config file ${path}: check the path`, {
      cause,
    });
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw 0;
    return value as ConfigFile;
  } catch (cause) {
    throw new CliError(
      EXIT.badData,
      `the config file ${path} is not a JSON object: fix or remove it`,
      {
        cause,
      },
    );
  }
}

/** Reads `a.b.c` from a config object. */
function lookUp(file: ConfigFile, path: string): unknown {
  let at: unknown = file;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** One setting's sources. */
export interface SettingSource {
  flag?: string | number | boolean | string[] | undefined;
  env?: string;
  /** Its path in the config file, such as `host.port`. */
  file?: string;
}

/** Resolves settings against one environment and one config file. */
export class Settings {
  constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly file: ConfigFile,
  ) {}

  string(source: SettingSource): string | undefined {
    if (source.flag !== undefined) return String(source.flag);
    const fromEnv = source.env ? this.env[source.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    if (!source.file) return undefined;
    const fromFile = lookUp(this.file, source.file);
    if (fromFile === undefined || fromFile === null) return undefined;
    if (typeof fromFile !== 'string' && typeof fromFile !== 'number') {
      throw new CliError(EXIT.badData, `config ${source.file} must be a string or a number`);
    }
    return String(fromFile);
  }

  number(source: SettingSource, name: string): number | undefined {
    const text = this.string(source);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) {
      throw new CliError(EXIT.usage, `${name} must be a number, not ${JSON.stringify(text)}`);
    }
    return value;
  }

  boolean(source: SettingSource): boolean {
    if (source.flag !== undefined) return Boolean(source.flag);
    const fromEnv = source.env ? this.env[source.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return !/^(0|false|no|off)$/i.test(fromEnv);
    return source.file ? lookUp(this.file, source.file) === true : false;
  }

  /** A list: repeated flags, a comma-separated variable, or a JSON array in the file. */
  list(source: SettingSource): string[] {
    if (Array.isArray(source.flag) && source.flag.length > 0) return source.flag;
    const fromEnv = source.env ? this.env[source.env] : undefined;
    if (fromEnv)
      return fromEnv
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const fromFile = source.file ? lookUp(this.file, source.file) : undefined;
    if (fromFile === undefined) return [];
    if (!Array.isArray(fromFile) || fromFile.some((v) => typeof v !== 'string')) {
      throw new CliError(EXIT.badData, `config ${source.file} must be a list of strings`);
    }
    return fromFile as string[];
  }
}

/** Byte sizes as people write them: `10MiB`, `1.5GB`, `4096`. */
export function parseBytes(text: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(text);
  if (!match)
    throw new CliError(EXIT.usage, `${name}: ${JSON.stringify(text)} is not a size like 10MiB`);
  const unit = (match[2] ?? '').toLowerCase().replace(/b$/, '');
  const powers: Record<string, number> = {
    '': 1,
    k: 1e3,
    m: 1e6,
    g: 1e9,
    t: 1e12,
    ki: 2 ** 10,
    mi: 2 ** 20,
    gi: 2 ** 30,
    ti: 2 ** 40,
  };
  const factor = powers[unit];
  if (factor === undefined)
    throw new CliError(EXIT.usage, `${name}: unknown unit in ${JSON.stringify(text)}`);
  return Math.round(Number(match[1]) * factor);
}
