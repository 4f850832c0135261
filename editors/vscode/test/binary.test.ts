import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { BinaryNotFoundError, resolveServerBinary } from '../src/binary';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-offload-binary-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Creates `rel` under a fresh directory; `mode` 0o755 makes it executable. */
function place(dir: string, rel: string, mode = 0o755): string {
  const file = path.join(root, dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, mode);
  return file;
}

const onUnix = process.platform !== 'win32';

test('the setting wins over PATH and the workspace', () => {
  const configured = place('a', 'custom/cuda-offload');
  const onPath = place('a', 'bin/cuda-offload');
  place('a', 'ws/target/release/cuda-offload');
  const got = resolveServerBinary({
    configured,
    pathEnv: path.dirname(onPath),
    workspaceFolders: [path.join(root, 'a', 'ws')],
  });
  assert.deepEqual(got, { path: configured, source: 'setting' });
});

test('a configured path that is missing is an error, not a silent fallback', () => {
  const onPath = place('b', 'bin/cuda-offload');
  assert.throws(
    () => resolveServerBinary({ configured: '/nowhere/cuda-offload', pathEnv: path.dirname(onPath), workspaceFolders: [] }),
    (e: unknown) => e instanceof BinaryNotFoundError && /cudaOffload\.server\.path is set to "\/nowhere\/cuda-offload"/.test(e.message),
  );
});

test('a configured relative path or ${workspaceFolder} is taken from the first workspace folder', () => {
  const ws = path.join(root, 'c', 'ws');
  const built = place('c', 'ws/tools/cuda-offload');
  assert.equal(resolveServerBinary({ configured: 'tools/cuda-offload', workspaceFolders: [ws] }).path, built);
  assert.equal(resolveServerBinary({ configured: '${workspaceFolder}/tools/cuda-offload', workspaceFolders: [ws] }).path, built);
});

test('PATH is searched in order and skips entries without the binary', () => {
  const first = place('d', 'one/cuda-offload');
  const second = place('d', 'two/cuda-offload');
  const empty = path.join(root, 'd', 'empty');
  fs.mkdirSync(empty);
  const pathEnv = ['', empty, path.dirname(second), path.dirname(first)].join(path.delimiter);
  assert.deepEqual(resolveServerBinary({ pathEnv, workspaceFolders: [] }), { path: second, source: 'PATH' });
});

test('without PATH hits the workspace release build comes before the debug build', () => {
  const ws = path.join(root, 'e', 'ws');
  const debug = place('e', 'ws/target/debug/cuda-offload');
  assert.deepEqual(resolveServerBinary({ pathEnv: '', workspaceFolders: [ws] }), { path: debug, source: 'workspace' });
  const release = place('e', 'ws/target/release/cuda-offload');
  assert.deepEqual(resolveServerBinary({ pathEnv: '', workspaceFolders: [ws] }), { path: release, source: 'workspace' });
});

test('later workspace folders are searched too', () => {
  const other = place('f', 'second/target/debug/cuda-offload');
  const got = resolveServerBinary({ workspaceFolders: [path.join(root, 'f', 'first'), path.join(root, 'f', 'second')] });
  assert.equal(got.path, other);
});

test('files without the execute bit and directories are not taken', { skip: !onUnix && 'execute bits are Unix-only' }, () => {
  const notExec = place('g', 'bin/cuda-offload', 0o644);
  fs.mkdirSync(path.join(root, 'g', 'dir', 'cuda-offload'), { recursive: true });
  const pathEnv = [path.join(root, 'g', 'dir'), path.dirname(notExec)].join(path.delimiter);
  assert.throws(() => resolveServerBinary({ pathEnv, workspaceFolders: [] }), BinaryNotFoundError);
});

test('the not-found error says how to fix it and lists every place looked at', () => {
  const ws = path.join(root, 'h', 'ws');
  try {
    resolveServerBinary({ pathEnv: ['/p1', '/p2'].join(path.delimiter), workspaceFolders: [ws] });
    assert.fail('expected BinaryNotFoundError');
  } catch (e) {
    assert.ok(e instanceof BinaryNotFoundError);
    assert.match(e.message, /cargo build --release/);
    assert.match(e.message, /cudaOffload\.server\.path/);
    assert.deepEqual(e.tried, [
      path.join('/p1', 'cuda-offload'),
      path.join('/p2', 'cuda-offload'),
      path.join(ws, 'target', 'release', 'cuda-offload'),
      path.join(ws, 'target', 'debug', 'cuda-offload'),
    ]);
  }
});

test('on Windows the binary is cuda-offload.exe and PATH is split on ;', () => {
  const exe = place('i', 'bin/cuda-offload.exe', 0o644);
  const got = resolveServerBinary({ pathEnv: `C:\\nothing;${path.dirname(exe)}`, workspaceFolders: [], platform: 'win32' });
  assert.deepEqual(got, { path: exe, source: 'PATH' });
});
