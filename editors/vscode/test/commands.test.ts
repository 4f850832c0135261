import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loopArgs, parseOffloadResult, parseShowPathResult, pathDocumentName } from '../src/commands';

test('loop arguments have the shape of docs/lsp-protocol.md', () => {
  assert.deepEqual(loopArgs('file:///w/a.cpp', 0), [{ uri: 'file:///w/a.cpp', line: 0 }]);
  assert.throws(() => loopArgs('file:///w/a.cpp', -1), /0-based line/);
  assert.throws(() => loopArgs('file:///w/a.cpp', 1.5), /0-based line/);
});

test('the offload answer must carry a jobId', () => {
  assert.equal(parseOffloadResult({ jobId: 'job-7' }), 'job-7');
  assert.throws(() => parseOffloadResult(null), /without a jobId: null/);
  assert.throws(() => parseOffloadResult({ jobId: 7 }), /without a jobId/);
  assert.throws(() => parseOffloadResult({ jobId: '' }), /without a jobId/);
});

test('the showPath answer must carry markdown', () => {
  assert.equal(parseShowPathResult({ markdown: '# Paths\n' }), '# Paths\n');
  assert.equal(parseShowPathResult({ markdown: '' }), '');
  assert.throws(() => parseShowPathResult({}), /without markdown/);
});

test('path documents are named after the file and 1-based line', () => {
  assert.equal(pathDocumentName('file:///w/saxpy.cpp', 11), 'saxpy.cpp-line-12-optimization-path.md');
  assert.equal(pathDocumentName('file:///w/my%20k.cu?x#y', 0), 'my k.cu-line-1-optimization-path.md');
});
