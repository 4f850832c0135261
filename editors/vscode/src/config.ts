// The server configuration of docs/lsp-protocol.md, built from the `cudaOffload.*` settings.
// No `vscode` import: the extension passes a reader over its settings, the unit tests a plain object.

import * as os from 'node:os';
import * as path from 'node:path';

export const SECTION = 'cudaOffload';

export type Backend = 'ollama' | 'openai' | 'replay';
export type Strategy = 'mcgs' | 'enumerate' | 'cot' | 'standard' | 'port';
export type Start = 'port' | 'serial';

export interface ServerConfig {
  backend: Backend;
  url: string;
  model: string;
  apiKey: string | null;
  cassette: string | null;
  budget: number;
  parallel: number;
  strategy: Strategy;
  start: Start;
  seed: number;
  nvccPath: string | null;
  gpuArch: string | null;
  timeouts: { requestSeconds: number; verifySeconds: number };
  maxConcurrentSearches: number;
}

/** How one setting is checked: its key under `cudaOffload.`, its default, and what values it accepts. */
export type SettingSpec =
  | { key: string; kind: 'enum'; values: readonly string[]; default: string }
  | { key: string; kind: 'string'; default: string }
  | { key: string; kind: 'optionalString'; default: null; isPath?: boolean; pattern?: RegExp }
  | { key: string; kind: 'integer'; default: number; minimum: number };

/** Every server setting, in the order of docs/lsp-protocol.md. Keys with a dot are nested objects. */
export const SERVER_SETTINGS: readonly SettingSpec[] = [
  { key: 'backend', kind: 'enum', values: ['ollama', 'openai', 'replay'], default: 'ollama' },
  { key: 'url', kind: 'string', default: 'http://localhost:11434' },
  { key: 'model', kind: 'string', default: 'qwen2.5-coder:7b' },
  { key: 'apiKey', kind: 'optionalString', default: null },
  { key: 'cassette', kind: 'optionalString', default: null, isPath: true },
  { key: 'budget', kind: 'integer', default: 32, minimum: 1 },
  { key: 'parallel', kind: 'integer', default: 1, minimum: 1 },
  { key: 'strategy', kind: 'enum', values: ['mcgs', 'enumerate', 'cot', 'standard', 'port'], default: 'mcgs' },
  { key: 'start', kind: 'enum', values: ['port', 'serial'], default: 'port' },
  { key: 'seed', kind: 'integer', default: 0, minimum: 0 },
  { key: 'nvccPath', kind: 'optionalString', default: null, isPath: true },
  { key: 'gpuArch', kind: 'optionalString', default: null, pattern: /^sm_[0-9]+[a-z]?$/ },
  { key: 'timeouts.requestSeconds', kind: 'integer', default: 120, minimum: 1 },
  { key: 'timeouts.verifySeconds', kind: 'integer', default: 60, minimum: 1 },
  { key: 'maxConcurrentSearches', kind: 'integer', default: 2, minimum: 1 },
];

/** Where `~`, `${workspaceFolder}` and relative paths in path settings point. */
export interface PathContext {
  workspaceFolder?: string;
  home?: string;
}

export interface ConfigResult {
  config: ServerConfig;
  /** One sentence per setting that was replaced by its default, for the user. */
  problems: string[];
}

/**
 * Builds the server configuration from `read(key)` (the effective value of `cudaOffload.<key>`, or
 * undefined). Invalid values fall back to the default and are reported rather than sent, so the
 * server never starts from a configuration the settings UI would have rejected.
 */
export function toServerConfig(read: (key: string) => unknown, ctx: PathContext = {}): ConfigResult {
  const problems: string[] = [];
  const flat: Record<string, unknown> = {};
  for (const spec of SERVER_SETTINGS) {
    const raw = read(spec.key);
    const checked = checkSetting(spec, raw, ctx);
    if (checked.problem) {
      problems.push(`${SECTION}.${spec.key}: ${checked.problem}; using ${JSON.stringify(spec.default)}`);
    }
    flat[spec.key] = checked.value;
  }
  return { config: nest(flat) as unknown as ServerConfig, problems };
}

function checkSetting(spec: SettingSpec, raw: unknown, ctx: PathContext): { value: unknown; problem?: string } {
  if (raw === undefined) return { value: spec.default };
  switch (spec.kind) {
    case 'enum':
      if (typeof raw === 'string' && spec.values.includes(raw)) return { value: raw };
      return { value: spec.default, problem: `${JSON.stringify(raw)} is not one of ${spec.values.join(', ')}` };
    case 'string':
      if (typeof raw !== 'string') return { value: spec.default, problem: `${JSON.stringify(raw)} is not a string` };
      if (raw.trim() === '') return { value: spec.default, problem: 'is empty' };
      return { value: raw.trim() };
    case 'optionalString': {
      if (raw === null) return { value: null };
      if (typeof raw !== 'string') return { value: null, problem: `${JSON.stringify(raw)} is not a string` };
      const s = raw.trim();
      if (s === '') return { value: null };
      if (spec.pattern && !spec.pattern.test(s)) {
        return { value: null, problem: `${JSON.stringify(s)} does not look like ${spec.pattern.source}` };
      }
      return { value: spec.isPath ? expandPath(s, ctx) : s };
    }
    case 'integer':
      if (typeof raw !== 'number' || !Number.isInteger(raw)) {
        return { value: spec.default, problem: `${JSON.stringify(raw)} is not a whole number` };
      }
      if (raw < spec.minimum) return { value: spec.default, problem: `${raw} is below ${spec.minimum}` };
      return { value: raw };
  }
}

/** Expands `~` and `${workspaceFolder}`, and anchors relative paths at the workspace folder. */
export function expandPath(p: string, ctx: PathContext): string {
  let out = p;
  const home = ctx.home ?? os.homedir();
  if (out === '~' || out.startsWith('~/')) out = home + out.slice(1);
  if (ctx.workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
    if (!path.isAbsolute(out)) out = path.join(ctx.workspaceFolder, out);
  }
  return out;
}

function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}

/** Whether a settings change needs a new server process rather than a `didChangeConfiguration`. */
export const RESTART_SETTINGS: readonly string[] = [`${SECTION}.server.path`];
