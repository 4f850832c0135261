import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  loopArgs,
  offloadOutcomeMessage,
  parseCancelResult,
  parseOffloadResult,
  parseShowPathResult,
  pathDocumentName,
} from '../src/commands';

test('loop arguments have the shape of docs/lsp-protocol.md', () => {
  assert.deepEqual(loopArgs('file:///w/a.cpp', 0), [{ uri: 'file:///w/a.cpp', line: 0 }]);
  assert.throws(() => loopArgs('file:///w/a.cpp', -1), /0-based line/);
  assert.throws(() => loopArgs('file:///w/a.cpp', 1.5), /0-based line/);
});

test('the offload answer must carry a jobId', () => {
  assert.deepEqual(parseOffloadResult({ jobId: 'job-7' }), { jobId: 'job-7' });
  assert.throws(() => parseOffloadResult(null), /without a jobId: null/);
  assert.throws(() => parseOffloadResult({ jobId: 7 }), /without a jobId/);
  assert.throws(() => parseOffloadResult({ jobId: '' }), /without a jobId/);
});

test('an answer given when the search ends carries its outcome', () => {
  const done = parseOffloadResult({ jobId: 's1', state: 'done', applied: true, verdict: 'verified, 3.1x faster', speedup: 3.1 });
  assert.deepEqual(done, { jobId: 's1', state: 'done', applied: true, verdict: 'verified, 3.1x faster' });
  assert.equal(offloadOutcomeMessage(done), 'verified, 3.1x faster');
  assert.match(offloadOutcomeMessage({ ...done, applied: false })!, /not applied; the "Apply kept CUDA kernel" code action/);
  assert.equal(offloadOutcomeMessage({ jobId: 's2', state: 'cancelled' }), 'search s2 cancelled');
  assert.equal(offloadOutcomeMessage({ jobId: 's3', state: 'failed', message: 'no model' }), undefined);
  assert.equal(offloadOutcomeMessage({ jobId: 's4' }), undefined);
  assert.deepEqual(parseOffloadResult({ jobId: 's5', state: 'exploded', applied: 'yes' }), { jobId: 's5' });
});

test('the cancel answer may say how many searches stopped', () => {
  assert.equal(parseCancelResult({ cancelled: 0 }), 0);
  assert.equal(parseCancelResult({ cancelled: 2 }), 2);
  assert.equal(parseCancelResult(null), undefined);
  assert.equal(parseCancelResult({ cancelled: -1 }), undefined);
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
