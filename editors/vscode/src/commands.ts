// The server's workspace/executeCommand surface (docs/lsp-protocol.md): argument shapes and checks
// of what comes back. No `vscode` import.

export const SERVER_COMMANDS = {
  offload: 'cuda-offload.offload',
  cancel: 'cuda-offload.cancel',
  applyKept: 'cuda-offload.applyKept',
  showPath: 'cuda-offload.showPath',
} as const;

export const STATUS_NOTIFICATION = 'cuda-offload/status';

/** A loop is named by its document and a 0-based line anywhere in its header. */
export interface LoopRef {
  uri: string;
  line: number;
}

export function loopArgs(uri: string, line: number): [LoopRef] {
  if (!Number.isInteger(line) || line < 0) throw new Error(`line must be a 0-based line number, got ${line}`);
  return [{ uri, line }];
}

/**
 * What `cuda-offload.offload` answered. docs/lsp-protocol.md has it answer `{jobId}` at once; a
 * server that answers when the search ends adds the outcome (state, verdict, applied), which is
 * then worth telling the user.
 */
export interface OffloadOutcome {
  jobId: string;
  state?: 'done' | 'cancelled' | 'failed';
  verdict?: string;
  applied?: boolean;
  message?: string;
}

export function parseOffloadResult(result: unknown): OffloadOutcome {
  const o = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  if (typeof o.jobId !== 'string' || o.jobId === '') {
    throw new Error(`the server answered ${SERVER_COMMANDS.offload} without a jobId: ${JSON.stringify(result)}`);
  }
  const outcome: OffloadOutcome = { jobId: o.jobId };
  if (o.state === 'done' || o.state === 'cancelled' || o.state === 'failed') outcome.state = o.state;
  if (typeof o.verdict === 'string') outcome.verdict = o.verdict;
  if (typeof o.applied === 'boolean') outcome.applied = o.applied;
  if (typeof o.message === 'string') outcome.message = o.message;
  return outcome;
}

/** The sentence for the user about a finished search, if there is one to say. */
export function offloadOutcomeMessage(o: OffloadOutcome): string | undefined {
  switch (o.state) {
    case 'done': {
      const verdict = o.verdict ?? 'search finished';
      return o.applied === false
        ? `${verdict} — not applied; the "Apply kept CUDA kernel" code action applies it`
        : verdict;
    }
    case 'cancelled':
      return `search ${o.jobId} cancelled`;
    // A failure is reported by the server itself (window/showMessage); no state: still running.
    default:
      return undefined;
  }
}

/** How many searches `cuda-offload.cancel` stopped, when the server says. */
export function parseCancelResult(result: unknown): number | undefined {
  const n = (result as { cancelled?: unknown } | null)?.cancelled;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function parseShowPathResult(result: unknown): string {
  const markdown = (result as { markdown?: unknown } | null)?.markdown;
  if (typeof markdown !== 'string') {
    throw new Error(`the server answered ${SERVER_COMMANDS.showPath} without markdown: ${JSON.stringify(result)}`);
  }
  return markdown;
}

/** Name of the read-only document that shows a loop's optimization paths. */
export function pathDocumentName(uri: string, line: number): string {
  const file = uri.replace(/[?#].*$/, '').split('/').pop() || 'document';
  return `${decodeSafe(file)}-line-${line + 1}-optimization-path.md`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
