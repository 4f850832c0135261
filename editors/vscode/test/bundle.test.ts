// The .vsix ships dist/extension.js without node_modules: the bundle may only require Node's
// built-in modules and `vscode`, which VS Code provides.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';

test('the bundle requires nothing but Node built-ins and vscode', () => {
  const bundle = readFileSync(path.join(process.cwd(), 'dist', 'extension.js'), 'utf8');
  const required = new Set([...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
  assert.ok(required.has('vscode'), 'the bundle uses the vscode API');
  const foreign = [...required].filter((m) => m !== 'vscode' && !builtinModules.includes(m.replace(/^node:/, '')));
  assert.deepEqual(foreign, []);
  // The language client is inside the bundle, not loaded from node_modules at run time.
  assert.match(bundle, /workspace\/executeCommand/);
});
