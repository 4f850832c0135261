import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandPath, SERVER_SETTINGS, toServerConfig } from '../src/config';

const reader = (values: Record<string, unknown>) => (key: string) => values[key];

test('unset settings give the defaults of docs/lsp-protocol.md', () => {
  const { config, problems } = toServerConfig(reader({}));
  assert.deepEqual(problems, []);
  assert.deepEqual(config, {
    backend: 'ollama',
    url: 'http://localhost:11434',
    model: 'qwen2.5-coder:7b',
    apiKey: null,
    cassette: null,
    budget: 32,
    parallel: 1,
    strategy: 'mcgs',
    start: 'port',
    seed: 0,
    nvccPath: null,
    gpuArch: null,
    timeouts: { requestSeconds: 120, verifySeconds: 60 },
    maxConcurrentSearches: 2,
  });
});

test('every setting is passed through, dotted keys become nested objects', () => {
  const { config, problems } = toServerConfig(
    reader({
      backend: 'openai',
      url: ' http://127.0.0.1:8080/v1 ',
      model: 'qwen2.5-coder-1.5b',
      apiKey: 'sk-local',
      cassette: '/abs/replay.jsonl',
      budget: 8,
      parallel: 4,
      strategy: 'enumerate',
      seed: 7,
      nvccPath: '/opt/cuda',
      gpuArch: 'sm_90a',
      'timeouts.requestSeconds': 30,
      'timeouts.verifySeconds': 5,
      maxConcurrentSearches: 1,
    }),
    { workspaceFolder: '/ws' },
  );
  assert.deepEqual(problems, []);
  assert.equal(config.backend, 'openai');
  assert.equal(config.url, 'http://127.0.0.1:8080/v1', 'surrounding blanks are trimmed');
  assert.equal(config.apiKey, 'sk-local');
  assert.equal(config.cassette, '/abs/replay.jsonl');
  assert.equal(config.gpuArch, 'sm_90a');
  assert.deepEqual(config.timeouts, { requestSeconds: 30, verifySeconds: 5 });
  assert.equal(config.maxConcurrentSearches, 1);
  assert.equal(config.seed, 7);
});

test('invalid values fall back to the default and are reported by setting name', () => {
  const { config, problems } = toServerConfig(
    reader({ backend: 'gpt', budget: 0, seed: 1.5, strategy: 3, gpuArch: 'hopper', url: '', 'timeouts.verifySeconds': '60' }),
  );
  assert.equal(config.backend, 'ollama');
  assert.equal(config.budget, 32);
  assert.equal(config.seed, 0);
  assert.equal(config.strategy, 'mcgs');
  assert.equal(config.gpuArch, null);
  assert.equal(config.url, 'http://localhost:11434');
  assert.equal(config.timeouts.verifySeconds, 60);
  const named = problems.map((p) => p.split(':')[0]).sort();
  assert.deepEqual(named, [
    'cudaOffload.backend',
    'cudaOffload.budget',
    'cudaOffload.gpuArch',
    'cudaOffload.seed',
    'cudaOffload.strategy',
    'cudaOffload.timeouts.verifySeconds',
    'cudaOffload.url',
  ]);
  assert.match(problems.find((p) => p.startsWith('cudaOffload.backend'))!, /"gpt" is not one of ollama, openai, replay; using "ollama"/);
});

test('empty optional strings are sent as null', () => {
  const { config, problems } = toServerConfig(reader({ apiKey: '', nvccPath: '   ', cassette: null }));
  assert.deepEqual(problems, []);
  assert.equal(config.apiKey, null);
  assert.equal(config.nvccPath, null);
  assert.equal(config.cassette, null);
});

test('path settings expand ~ and ${workspaceFolder} and anchor relative paths at the workspace', () => {
  const ctx = { workspaceFolder: '/home/u/proj', home: '/home/u' };
  const { config } = toServerConfig(reader({ cassette: 'tests/saxpy.cassette', nvccPath: '~/cuda' }), ctx);
  assert.equal(config.cassette, '/home/u/proj/tests/saxpy.cassette');
  assert.equal(config.nvccPath, '/home/u/cuda');
  assert.equal(expandPath('${workspaceFolder}/.toolchain/cuda', ctx), '/home/u/proj/.toolchain/cuda');
  assert.equal(expandPath('rel', { home: '/h' }), 'rel', 'without a workspace a relative path stays as it is');
  // The API key is not a path: it must reach the server untouched.
  assert.equal(toServerConfig(reader({ apiKey: '~/key' }), ctx).config.apiKey, '~/key');
});

test('the spec table has one entry per key and only valid defaults', () => {
  const keys = SERVER_SETTINGS.map((s) => s.key);
  assert.equal(new Set(keys).size, keys.length);
  for (const spec of SERVER_SETTINGS) {
    if (spec.kind === 'enum') assert.ok(spec.values.includes(spec.default), spec.key);
    if (spec.kind === 'integer') assert.ok(spec.default >= spec.minimum, spec.key);
  }
});
