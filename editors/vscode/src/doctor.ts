// Runs `cuda-offload doctor` with the same model server and nvcc the language server will use.
// No `vscode` import.

import { spawn } from 'node:child_process';
import type { ServerConfig } from './config';

export function doctorArgs(config: ServerConfig): string[] {
  const args = ['doctor', '--backend', config.backend, '--url', config.url, '--model', config.model];
  if (config.nvccPath !== null) args.push('--nvcc', config.nvccPath);
  return args;
}

export interface Captured {
  command: string;
  args: string[];
  /** Exit status; null when the process was killed or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  spawnError?: string;
}

/** Runs a command to completion, capturing its output; never rejects. */
export function runCaptured(
  command: string,
  args: string[],
  opts: { cwd?: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<Captured> {
  return new Promise((resolve) => {
    const result: Captured = { command, args, exitCode: null, stdout: '', stderr: '', timedOut: false };
    let child;
    try {
      child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ ...result, spawnError: (e as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      result.timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (result.stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (result.stderr += d));
    child.on('error', (e) => {
      result.spawnError = e.message;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      result.exitCode = result.spawnError === undefined ? code : null;
      resolve(result);
    });
  });
}

/** The doctor's report as the output channel shows it. */
export function formatDoctorReport(c: Captured): string {
  const lines = [`$ ${[c.command, ...c.args].map(shellQuote).join(' ')}`];
  if (c.stdout.trim()) lines.push(c.stdout.trimEnd());
  if (c.stderr.trim()) lines.push(c.stderr.trimEnd());
  if (c.spawnError) lines.push(`could not start ${c.command}: ${c.spawnError}`);
  else if (c.timedOut) lines.push('doctor did not finish in time and was stopped');
  else if (c.exitCode === 0) lines.push('doctor: everything needed was found');
  else lines.push(`doctor exited with status ${c.exitCode}: see the fix lines above`);
  return lines.join('\n') + '\n';
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
