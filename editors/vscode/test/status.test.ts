import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cancelTarget, fileName, JobTable, type JobStatus, mergeJob, parseStatus, statusView } from '../src/status';

const URI = 'file:///work/test-workspaces/saxpy/saxpy.cpp';

function job(over: Partial<JobStatus> = {}): JobStatus {
  return { jobId: 'j1', uri: URI, line: 11, iteration: 3, llmCalls: 5, budget: 32, bestReward: null, state: 'running', ...over };
}

test('a well-formed notification is parsed as sent', () => {
  const params = { jobs: [job({ bestReward: 0.42 }), job({ jobId: 'j2', state: 'done' })] };
  assert.deepEqual(parseStatus(JSON.parse(JSON.stringify(params))), { jobs: params.jobs, rejected: 0 });
});

test('malformed jobs are dropped and counted, the rest kept', () => {
  const { jobs, rejected } = parseStatus({
    jobs: [
      job(),
      { ...job({ jobId: 'bad-state' }), state: 'exploded' },
      { ...job({ jobId: 'bad-line' }), line: -1 },
      { ...job({ jobId: 'bad-reward' }), bestReward: 'high' },
      { ...job({ jobId: '' }) },
      null,
      'j9',
    ],
  });
  assert.deepEqual(jobs.map((j) => j.jobId), ['j1']);
  assert.equal(rejected, 6);
  assert.deepEqual(parseStatus({}), { jobs: [], rejected: 1 });
  assert.deepEqual(parseStatus(null), { jobs: [], rejected: 1 });
});

test('a missing bestReward means none yet', () => {
  const { jobs } = parseStatus({ jobs: [{ ...job(), bestReward: undefined }] });
  assert.equal(jobs[0].bestReward, null);
});

test('one running search: file, 1-based line, calls of budget, best reward when there is one', () => {
  const v = statusView([job()]);
  assert.equal(v.visible, true);
  assert.equal(v.cancellable, true);
  assert.equal(v.text, '$(sync~spin) CUDA saxpy.cpp:12 5/32');
  assert.match(v.tooltip, /saxpy\.cpp:12: iteration 3, 5\/32 model calls, best reward none verified yet/);
  assert.equal(statusView([job({ bestReward: 0.4567 })]).text, '$(sync~spin) CUDA saxpy.cpp:12 5/32, best 0.46');
});

test('several running searches are summed; ended ones are not counted', () => {
  const v = statusView([job(), job({ jobId: 'j2', llmCalls: 1, budget: 8, line: 40 }), job({ jobId: 'j3', state: 'done' })]);
  assert.equal(v.text, '$(sync~spin) CUDA 2 searches 6/40');
  assert.equal(v.tooltip.split('\n').length, 4);
});

test('after the last search ends the item says how it ended and no longer cancels', () => {
  const done = statusView([job({ state: 'done', bestReward: 0.9, llmCalls: 32 })]);
  assert.equal(done.text, '$(check) CUDA saxpy.cpp:12 done, best 0.90');
  assert.equal(done.cancellable, false);
  assert.equal(statusView([job({ state: 'cancelled' })]).text, '$(circle-slash) CUDA saxpy.cpp:12 cancelled');
  assert.equal(statusView([job({ state: 'failed' })]).text, '$(error) CUDA saxpy.cpp:12 failed');
  assert.equal(statusView([]).visible, false);
});

test('the job table updates by jobId and forgets ended jobs on request', () => {
  const t = new JobTable();
  t.update([job(), job({ jobId: 'j2' })]);
  t.update([job({ iteration: 4, llmCalls: 7 })]);
  assert.equal(t.all().length, 2);
  assert.equal(t.all().find((j) => j.jobId === 'j1')!.llmCalls, 7);
  t.update([job({ jobId: 'j2', state: 'cancelled' })]);
  assert.deepEqual(t.running().map((j) => j.jobId), ['j1']);
  t.forgetEnded();
  assert.deepEqual(t.all().map((j) => j.jobId), ['j1']);
  t.clear();
  assert.deepEqual(t.all(), []);
});

test('a final status without counts keeps the counts and best reward seen so far', () => {
  const t = new JobTable();
  t.update([job({ iteration: 6, llmCalls: 12, bestReward: 0.7 })]);
  t.update([job({ iteration: 0, llmCalls: 0, bestReward: null, state: 'cancelled' })]);
  assert.deepEqual(t.all(), [job({ iteration: 6, llmCalls: 12, bestReward: 0.7, state: 'cancelled' })]);
  assert.equal(mergeJob(job({ bestReward: 0.5 }), job({ bestReward: 0.9, state: 'done' })).bestReward, 0.9);
  assert.equal(mergeJob(job({ bestReward: 0.9 }), job({ bestReward: 0.5 })).bestReward, 0.9);
  assert.equal(mergeJob(job(), job({ bestReward: 0.2 })).bestReward, 0.2);
});

test('cancel picks the search on the cursor line, else the only one, else asks', () => {
  assert.deepEqual(cancelTarget([]), { kind: 'none' });
  assert.deepEqual(cancelTarget([job({ state: 'done' })]), { kind: 'none' });
  const a = job();
  const b = job({ jobId: 'j2', line: 40 });
  assert.deepEqual(cancelTarget([a]), { kind: 'job', args: [{ jobId: 'j1' }], job: a });
  assert.deepEqual(cancelTarget([a, b], { uri: URI, line: 40 }), { kind: 'job', args: [{ jobId: 'j2' }], job: b });
  assert.deepEqual(cancelTarget([a, b], { uri: URI, line: 5 }), { kind: 'choose', jobs: [a, b] });
  assert.deepEqual(cancelTarget([a, b]), { kind: 'choose', jobs: [a, b] });
});

test('file names are decoded from the URI', () => {
  assert.equal(fileName('file:///a/my%20loop.cu'), 'my loop.cu');
  assert.equal(fileName('file:///a/bad%zz.cpp'), 'bad%zz.cpp');
});
