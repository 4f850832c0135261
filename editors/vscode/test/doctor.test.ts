import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { toServerConfig } from '../src/config';
import { doctorArgs, formatDoctorReport, runCaptured } from '../src/doctor';

test('doctor checks the backend, URL, model and nvcc the server is configured with', () => {
  const base = toServerConfig(() => undefined).config;
  assert.deepEqual(doctorArgs(base), ['doctor', '--backend', 'ollama', '--url', 'http://localhost:11434', '--model', 'qwen2.5-coder:7b']);
  const custom = toServerConfig((k) => ({ backend: 'openai', url: 'http://127.0.0.1:8080/v1', model: 'm', nvccPath: '/opt/cuda' })[k]).config;
  assert.deepEqual(doctorArgs(custom), [
    'doctor', '--backend', 'openai', '--url', 'http://127.0.0.1:8080/v1', '--model', 'm', '--nvcc', '/opt/cuda',
  ]);
});

// runCaptured is exercised on real processes (node itself), not on a stand-in for the doctor.
test('runCaptured collects stdout, stderr and the exit status', async () => {
  const c = await runCaptured(process.execPath, ['-e', 'console.log("out"); console.error("err"); process.exit(3)'], { timeoutMs: 10_000 });
  assert.equal(c.stdout, 'out\n');
  assert.equal(c.stderr, 'err\n');
  assert.equal(c.exitCode, 3);
  assert.equal(c.timedOut, false);
  assert.match(formatDoctorReport(c), /exited with status 3/);
});

test('runCaptured stops a process that runs past its time', async () => {
  const c = await runCaptured(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { timeoutMs: 200 });
  assert.equal(c.timedOut, true);
  assert.equal(c.exitCode, null);
  assert.match(formatDoctorReport(c), /did not finish in time/);
});

test('runCaptured reports a binary that cannot be started instead of rejecting', async () => {
  const c = await runCaptured('/nonexistent/cuda-offload', ['doctor'], { timeoutMs: 10_000 });
  assert.match(c.spawnError ?? '', /ENOENT/);
  assert.equal(c.exitCode, null);
  assert.match(formatDoctorReport(c), /^\$ \/nonexistent\/cuda-offload doctor\ncould not start \/nonexistent\/cuda-offload: .*ENOENT/);
});

test('the report quotes arguments that a shell would split', () => {
  const text = formatDoctorReport({ command: '/b/cuda-offload', args: ['doctor', '--model', 'a b'], exitCode: 0, stdout: 'ok\n', stderr: '', timedOut: false });
  assert.equal(text, "$ /b/cuda-offload doctor --model 'a b'\nok\ndoctor: everything needed was found\n");
});

function builtBinary(): string | undefined {
  const root = path.resolve(process.cwd(), '..', '..');
  const candidates = [process.env.CUDA_OFFLOAD_BIN, path.join(root, 'target/release/cuda-offload'), path.join(root, 'target/debug/cuda-offload')];
  return candidates.find((p): p is string => !!p && fs.existsSync(p));
}

test('the real cuda-offload doctor runs with these arguments', async (t) => {
  const bin = builtBinary();
  if (!bin) {
    console.log('SKIP: no cuda-offload binary (cargo build, or set CUDA_OFFLOAD_BIN) for the doctor test');
    t.skip('no cuda-offload binary built');
    return;
  }
  // A closed port: the doctor must answer quickly that no model server is there, and say how to fix it.
  const config = toServerConfig((k) => ({ backend: 'openai', url: 'http://127.0.0.1:9/v1' })[k]).config;
  const c = await runCaptured(bin, doctorArgs(config), { timeoutMs: 60_000 });
  assert.equal(c.spawnError, undefined);
  assert.equal(c.timedOut, false);
  assert.equal(c.exitCode, 1, `doctor output:\n${c.stdout}\n${c.stderr}`);
  assert.match(c.stdout, /MISSING\s+model server/);
  assert.match(c.stdout, /fix:/);
});
