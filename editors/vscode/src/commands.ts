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

export function parseOffloadResult(result: unknown): string {
  const jobId = (result as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== 'string' || jobId === '') {
    throw new Error(`the server answered ${SERVER_COMMANDS.offload} without a jobId: ${JSON.stringify(result)}`);
  }
  return jobId;
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
