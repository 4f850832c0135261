// The state of the server's searches as told by the `cuda-offload/status` notification, and what
// the status bar says about it. No `vscode` import: plain data in, plain data out.

export type JobState = 'running' | 'done' | 'cancelled' | 'failed';

export interface JobStatus {
  jobId: string;
  uri: string;
  line: number;
  iteration: number;
  llmCalls: number;
  budget: number;
  bestReward: number | null;
  state: JobState;
}

const STATES: readonly JobState[] = ['running', 'done', 'cancelled', 'failed'];

/**
 * Validates the notification's params. The server is ours but its messages still cross a process
 * boundary: a malformed entry is dropped (and counted) instead of breaking the status bar.
 */
export function parseStatus(params: unknown): { jobs: JobStatus[]; rejected: number } {
  const list = (params as { jobs?: unknown } | null)?.jobs;
  if (!Array.isArray(list)) return { jobs: [], rejected: 1 };
  const jobs: JobStatus[] = [];
  let rejected = 0;
  for (const item of list) {
    const job = parseJob(item);
    if (job) jobs.push(job);
    else rejected++;
  }
  return { jobs, rejected };
}

function parseJob(item: unknown): JobStatus | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const o = item as Record<string, unknown>;
  const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  if (typeof o.jobId !== 'string' || o.jobId === '' || typeof o.uri !== 'string') return undefined;
  if (!isCount(o.line) || !isCount(o.iteration) || !isCount(o.llmCalls) || !isCount(o.budget)) return undefined;
  if (!STATES.includes(o.state as JobState)) return undefined;
  const reward = o.bestReward;
  if (reward !== null && reward !== undefined && (typeof reward !== 'number' || !Number.isFinite(reward))) {
    return undefined;
  }
  return {
    jobId: o.jobId,
    uri: o.uri,
    line: o.line,
    iteration: o.iteration,
    llmCalls: o.llmCalls,
    budget: o.budget,
    bestReward: reward ?? null,
    state: o.state as JobState,
  };
}

/**
 * A job's counts and best reward only grow while it runs. A later update that leaves them out
 * (zeros, null: a final status may carry only the new state) must not make the display go back.
 */
export function mergeJob(old: JobStatus, next: JobStatus): JobStatus {
  const best =
    old.bestReward === null ? next.bestReward : next.bestReward === null ? old.bestReward : Math.max(old.bestReward, next.bestReward);
  return {
    ...next,
    iteration: Math.max(old.iteration, next.iteration),
    llmCalls: Math.max(old.llmCalls, next.llmCalls),
    bestReward: best,
  };
}

/**
 * The jobs the client knows about. Each notification updates the jobs it lists (by jobId); a job
 * that has ended stays until `forgetEnded` so the status bar can show how it ended for a moment.
 */
export class JobTable {
  private readonly jobs = new Map<string, JobStatus>();

  update(jobs: readonly JobStatus[]): void {
    for (const job of jobs) {
      const old = this.jobs.get(job.jobId);
      this.jobs.set(job.jobId, old ? mergeJob(old, job) : job);
    }
  }

  forgetEnded(): void {
    for (const [id, job] of this.jobs) if (job.state !== 'running') this.jobs.delete(id);
  }

  clear(): void {
    this.jobs.clear();
  }

  all(): JobStatus[] {
    return [...this.jobs.values()];
  }

  running(): JobStatus[] {
    return this.all().filter((j) => j.state === 'running');
  }
}

export interface StatusView {
  visible: boolean;
  text: string;
  tooltip: string;
  /** True while something runs: clicking the item then cancels. */
  cancellable: boolean;
}

export function fileName(uri: string): string {
  const tail = uri.replace(/[?#].*$/, '').split('/').pop() ?? uri;
  try {
    return decodeURIComponent(tail);
  } catch {
    return tail;
  }
}

function where(job: JobStatus): string {
  // Lines are 0-based on the wire and 1-based for people.
  return `${fileName(job.uri)}:${job.line + 1}`;
}

export function formatReward(reward: number | null): string {
  return reward === null ? 'none verified yet' : reward.toFixed(2);
}

function describe(job: JobStatus): string {
  return (
    `${where(job)}: iteration ${job.iteration}, ${job.llmCalls}/${job.budget} model calls, ` +
    `best reward ${formatReward(job.bestReward)} (${job.state})`
  );
}

/** What the status bar item shows for the jobs known now (codicons in `$(...)`). */
export function statusView(jobs: readonly JobStatus[]): StatusView {
  const running = jobs.filter((j) => j.state === 'running');
  if (running.length === 1) {
    const j = running[0];
    const best = j.bestReward === null ? '' : `, best ${j.bestReward.toFixed(2)}`;
    return {
      visible: true,
      text: `$(sync~spin) CUDA ${where(j)} ${j.llmCalls}/${j.budget}${best}`,
      tooltip: `CUDA offload search — ${describe(j)}\nClick to cancel.`,
      cancellable: true,
    };
  }
  if (running.length > 1) {
    const calls = running.reduce((s, j) => s + j.llmCalls, 0);
    const budget = running.reduce((s, j) => s + j.budget, 0);
    return {
      visible: true,
      text: `$(sync~spin) CUDA ${running.length} searches ${calls}/${budget}`,
      tooltip: `CUDA offload searches —\n${running.map(describe).join('\n')}\nClick to cancel.`,
      cancellable: true,
    };
  }
  if (jobs.length === 0) return { visible: false, text: '', tooltip: '', cancellable: false };
  const last = jobs[jobs.length - 1];
  const icon = { done: '$(check)', cancelled: '$(circle-slash)', failed: '$(error)', running: '' }[last.state];
  const best = last.state === 'done' && last.bestReward !== null ? `, best ${last.bestReward.toFixed(2)}` : '';
  return {
    visible: true,
    text: `${icon} CUDA ${where(last)} ${last.state}${best}`,
    tooltip: `CUDA offload search — ${describe(last)}`,
    cancellable: false,
  };
}

export type CancelTarget =
  | { kind: 'none' }
  | { kind: 'job'; args: [{ jobId: string }]; job: JobStatus }
  | { kind: 'choose'; jobs: JobStatus[] };

/**
 * Which search "Cancel offload" means: the one on the cursor's line, else the only one running,
 * else the user has to choose.
 */
export function cancelTarget(jobs: readonly JobStatus[], cursor?: { uri: string; line: number }): CancelTarget {
  const running = jobs.filter((j) => j.state === 'running');
  if (running.length === 0) return { kind: 'none' };
  const here = cursor ? running.find((j) => j.uri === cursor.uri && j.line === cursor.line) : undefined;
  const job = here ?? (running.length === 1 ? running[0] : undefined);
  if (job) return { kind: 'job', args: [{ jobId: job.jobId }], job };
  return { kind: 'choose', jobs: running };
}

export function jobLabel(job: JobStatus): string {
  return describe(job);
}
