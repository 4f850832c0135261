// The settings VS Code shows (package.json) must be the settings the extension sends (config.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SECTION, SERVER_SETTINGS } from '../src/config';
import { documentSelector, isServedLanguage, LANGUAGES } from '../src/languages';

// Compiled into out/test/, run from the extension folder.
const manifest = JSON.parse(readFileSync(path.join(process.cwd(), 'package.json'), 'utf8'));
const properties: Record<string, { default?: unknown; enum?: string[]; minimum?: number; type: unknown }> =
  manifest.contributes.configuration.properties;

const CLIENT_ONLY = [`${SECTION}.server.path`, `${SECTION}.trace.server`];

test('every server setting is contributed with the same default, values and minimum', () => {
  for (const spec of SERVER_SETTINGS) {
    const prop = properties[`${SECTION}.${spec.key}`];
    assert.ok(prop, `package.json lacks ${SECTION}.${spec.key}`);
    assert.deepEqual(prop.default, spec.default, `${spec.key} default`);
    if (spec.kind === 'enum') assert.deepEqual(prop.enum, spec.values, `${spec.key} values`);
    if (spec.kind === 'integer') {
      assert.equal(prop.type, 'integer', `${spec.key} type`);
      assert.equal(prop.minimum, spec.minimum, `${spec.key} minimum`);
    }
    if (spec.kind === 'optionalString') assert.deepEqual(prop.type, ['string', 'null'], `${spec.key} type`);
  }
});

test('package.json contributes no setting the extension ignores', () => {
  const known = new Set([...SERVER_SETTINGS.map((s) => `${SECTION}.${s.key}`), ...CLIENT_ONLY]);
  assert.deepEqual(Object.keys(properties).filter((k) => !known.has(k)), []);
});

test('every command in the manifest has a title and the palette category', () => {
  const ids = manifest.contributes.commands.map((c: { command: string }) => c.command);
  for (const id of ['cudaOffload.offload', 'cudaOffload.cancel', 'cudaOffload.showPath', 'cudaOffload.doctor']) {
    assert.ok(ids.includes(id), id);
  }
  for (const c of manifest.contributes.commands) assert.equal(c.category, 'CUDA Offload');
  // Our ids must not collide with the server's: vscode-languageclient registers those itself.
  assert.ok(ids.every((id: string) => !id.startsWith('cuda-offload.')));
});

test('the extension activates for exactly the languages it serves', () => {
  const activation = manifest.activationEvents.filter((e: string) => e.startsWith('onLanguage:')).map((e: string) => e.slice('onLanguage:'.length));
  assert.deepEqual([...activation].sort(), [...LANGUAGES].sort());
  assert.deepEqual(documentSelector().map((s) => s.language), [...LANGUAGES]);
  assert.ok(documentSelector().every((s) => s.scheme === 'file'));
  const when: string = manifest.contributes.menus['editor/context'][0].when;
  for (const id of LANGUAGES) assert.ok(when.includes(`editorLangId == ${id}`), `context menu for ${id}`);
  assert.ok(isServedLanguage('cuda-cpp') && !isServedLanguage('python'));
});
