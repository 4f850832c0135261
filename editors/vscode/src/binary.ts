// Finds the `cuda-offload` binary: the `cudaOffload.server.path` setting, else PATH, else the
// workspace's own cargo build (release before debug, since a release build is what users run).
// No `vscode` import, so the unit tests run it against real files in a temporary directory.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { expandPath } from './config';

export const BINARY_NAME = 'cuda-offload';

export type BinarySource = 'setting' | 'PATH' | 'workspace';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

export interface ResolveInput {
  /** Value of `cudaOffload.server.path` (empty or undefined: not set). */
  configured?: string | null;
  /** The PATH environment variable. */
  pathEnv?: string;
  /** Absolute paths of the workspace folders, in order. */
  workspaceFolders: readonly string[];
  platform?: NodeJS.Platform;
  home?: string;
}

export class BinaryNotFoundError extends Error {
  constructor(
    message: string,
    readonly tried: readonly string[],
  ) {
    super(message);
    this.name = 'BinaryNotFoundError';
  }
}

function isExecutableFile(p: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    // Windows has no execute bit; a file with the right name is the best signal there.
    if (platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves the server binary or throws a BinaryNotFoundError whose message says what to do.
 * A configured path that does not work is an error of its own: falling back silently would
 * start a different server than the one the user asked for.
 */
export function resolveServerBinary(input: ResolveInput): ResolvedBinary {
  const platform = input.platform ?? process.platform;
  const exe = platform === 'win32' ? `${BINARY_NAME}.exe` : BINARY_NAME;
  const configured = input.configured?.trim();

  if (configured) {
    const candidate = expandPath(configured, { workspaceFolder: input.workspaceFolders[0], home: input.home });
    if (isExecutableFile(candidate, platform)) return { path: candidate, source: 'setting' };
    throw new BinaryNotFoundError(
      `cudaOffload.server.path is set to "${configured}", but ${candidate} is not an executable file. ` +
        'Fix the setting, or clear it to use cuda-offload from PATH or from the workspace build.',
      [candidate],
    );
  }

  const tried: string[] = [];
  const delimiter = platform === 'win32' ? ';' : ':';
  for (const dir of (input.pathEnv ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, exe);
    tried.push(candidate);
    if (isExecutableFile(candidate, platform)) return { path: candidate, source: 'PATH' };
  }
  for (const folder of input.workspaceFolders) {
    for (const profile of ['release', 'debug']) {
      const candidate = path.join(folder, 'target', profile, exe);
      tried.push(candidate);
      if (isExecutableFile(candidate, platform)) return { path: candidate, source: 'workspace' };
    }
  }
  throw new BinaryNotFoundError(
    `${BINARY_NAME} was not found on PATH nor in the workspace's target/release or target/debug. ` +
      'Build it with `cargo build --release` in the cuda-offload repository, put it on PATH, ' +
      'or set cudaOffload.server.path.',
    tried,
  );
}
