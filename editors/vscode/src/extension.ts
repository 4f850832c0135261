// VS Code entry point: starts `cuda-offload lsp` for C, C++ and CUDA files and wires the commands,
// the status bar item and the output channels to it. The logic lives in the modules it imports,
// which do not depend on `vscode` and have unit tests; this file only connects them to the UI.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { BinaryNotFoundError, resolveServerBinary, type ResolvedBinary } from './binary';
import {
  loopArgs,
  offloadOutcomeMessage,
  parseCancelResult,
  parseOffloadResult,
  parseShowPathResult,
  pathDocumentName,
  SERVER_COMMANDS,
  STATUS_NOTIFICATION,
} from './commands';
import { type ConfigResult, RESTART_SETTINGS, SECTION, toServerConfig } from './config';
import { doctorArgs, formatDoctorReport, runCaptured } from './doctor';
import { documentSelector, isServedLanguage } from './languages';
import { cancelTarget, JobTable, jobLabel, parseStatus, statusView } from './status';

const PATH_SCHEME = 'cuda-offload-path';
/** How long the status bar keeps showing how the last search ended. */
const ENDED_VISIBLE_MS = 15_000;
const DOCTOR_TIMEOUT_MS = 60_000;

let extension: Extension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  extension = new Extension(context);
  // Not awaited: activation should not wait for the server's initialize round trip.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}

class Extension {
  private client: LanguageClient | undefined;
  private readonly log = vscode.window.createOutputChannel('CUDA Offload', { log: true });
  private readonly doctorChannel = vscode.window.createOutputChannel('CUDA Offload Doctor');
  private readonly statusItem = vscode.window.createStatusBarItem('cudaOffload.status', vscode.StatusBarAlignment.Left, 10);
  private readonly jobs = new JobTable();
  private readonly pathDocs = new PathDocuments();
  private endedTimer: NodeJS.Timeout | undefined;
  private lastProblems = '';

  constructor(context: vscode.ExtensionContext) {
    this.statusItem.name = 'CUDA Offload';
    context.subscriptions.push(
      this.log,
      this.doctorChannel,
      this.statusItem,
      vscode.workspace.registerTextDocumentContentProvider(PATH_SCHEME, this.pathDocs),
      vscode.commands.registerCommand('cudaOffload.offload', () => this.offload()),
      vscode.commands.registerCommand('cudaOffload.cancel', () => this.cancel()),
      vscode.commands.registerCommand('cudaOffload.showPath', () => this.showPath()),
      vscode.commands.registerCommand('cudaOffload.doctor', () => this.doctor()),
      vscode.commands.registerCommand('cudaOffload.restart', () => this.restart()),
      vscode.commands.registerCommand('cudaOffload.showLog', () => this.log.show()),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      { dispose: () => clearTimeout(this.endedTimer) },
    );
  }

  async start(): Promise<void> {
    const binary = this.findBinary();
    if (!binary) return;
    this.log.info(`starting ${binary.path} lsp (found via ${binary.source})`);
    const serverOptions: ServerOptions = {
      command: binary.path,
      args: ['lsp'],
      options: { cwd: this.workspaceFolders()[0] },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      outputChannel: this.log,
      initializationOptions: () => this.serverConfig(undefined).config,
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answered = await next(params, token);
            if (!Array.isArray(answered)) return answered;
            return params.items.map((item, i) =>
              item.section === SECTION ? this.serverConfig(item.scopeUri).config : answered[i],
            );
          },
        },
      },
    };
    const client = new LanguageClient('cudaOffload', 'CUDA Offload', serverOptions, clientOptions);
    client.onNotification(STATUS_NOTIFICATION, (params: unknown) => this.onStatus(params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.jobs.clear();
        this.refreshStatus();
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      this.log.error(`the language server did not start: ${errorText(e)}`);
      void this.showError(`CUDA Offload: the language server did not start: ${errorText(e)}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client || client.state === State.Stopped) return;
    try {
      await client.stop();
    } catch (e) {
      this.log.warn(`stopping the language server: ${errorText(e)}`);
    }
  }

  private async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private findBinary(): ResolvedBinary | undefined {
    try {
      return resolveServerBinary({
        configured: vscode.workspace.getConfiguration(SECTION).get<string>('server.path'),
        pathEnv: process.env.PATH,
        workspaceFolders: this.workspaceFolders(),
      });
    } catch (e) {
      if (e instanceof BinaryNotFoundError) this.log.error(`${e.message}\nlooked at:\n  ${e.tried.join('\n  ')}`);
      void this.showError(`CUDA Offload: ${errorText(e)}`, 'Open Settings');
      return undefined;
    }
  }

  private serverConfig(scopeUri: string | undefined): ConfigResult {
    const scope = scopeUri ? vscode.Uri.parse(scopeUri) : undefined;
    const settings = vscode.workspace.getConfiguration(SECTION, scope);
    const folder = (scope && vscode.workspace.getWorkspaceFolder(scope)?.uri.fsPath) ?? this.workspaceFolders()[0];
    const result = toServerConfig((key) => settings.get(key), { workspaceFolder: folder });
    this.reportProblems(result.problems);
    return result;
  }

  private reportProblems(problems: string[]): void {
    const text = problems.join('\n');
    if (text === this.lastProblems) return;
    this.lastProblems = text;
    for (const p of problems) this.log.warn(p);
    if (problems.length > 0) void this.showWarning(`CUDA Offload settings: ${problems.join('; ')}`);
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
      void this.restart();
    } else if (e.affectsConfiguration(SECTION) && this.client?.isRunning()) {
      // The server answers this by asking for `workspace/configuration` again (docs/lsp-protocol.md).
      void this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: this.serverConfig(undefined).config },
      });
    }
  }

  private onStatus(params: unknown): void {
    const { jobs, rejected } = parseStatus(params);
    if (rejected > 0) this.log.warn(`ignored ${rejected} malformed job(s) in ${STATUS_NOTIFICATION}: ${JSON.stringify(params)}`);
    this.jobs.update(jobs);
    this.refreshStatus();
    if (this.jobs.all().some((j) => j.state !== 'running')) {
      clearTimeout(this.endedTimer);
      this.endedTimer = setTimeout(() => {
        this.jobs.forgetEnded();
        this.refreshStatus();
      }, ENDED_VISIBLE_MS);
    }
  }

  private refreshStatus(): void {
    const view = statusView(this.jobs.all());
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.command = view.cancellable ? 'cudaOffload.cancel' : 'cudaOffload.showLog';
    if (view.visible) this.statusItem.show();
    else this.statusItem.hide();
  }

  /** The running client, or undefined after telling the user why there is none. */
  private runningClient(): LanguageClient | undefined {
    if (this.client?.isRunning()) return this.client;
    void this.showError('CUDA Offload: the language server is not running.', 'Restart');
    return undefined;
  }

  private cursorLoop(client: LanguageClient): { uri: string; line: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file' || !isServedLanguage(editor.document.languageId)) {
      void vscode.window.showInformationMessage('CUDA Offload: put the cursor on a loop in a C, C++ or CUDA file saved on disk.');
      return undefined;
    }
    return {
      uri: client.code2ProtocolConverter.asUri(editor.document.uri),
      line: editor.selection.active.line,
    };
  }

  private async executeServerCommand(client: LanguageClient, command: string, args: unknown[]): Promise<unknown> {
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  private async offload(): Promise<void> {
    const client = this.runningClient();
    const loop = client && this.cursorLoop(client);
    if (!client || !loop) return;
    try {
      this.log.info(`offload requested for ${loop.uri}:${loop.line + 1}`);
      const result = await this.executeServerCommand(client, SERVER_COMMANDS.offload, loopArgs(loop.uri, loop.line));
      const outcome = parseOffloadResult(result);
      this.log.info(`search ${outcome.jobId}: ${outcome.state ?? 'started'}${outcome.verdict ? `: ${outcome.verdict}` : ''}`);
      const message = offloadOutcomeMessage(outcome);
      if (message) void vscode.window.showInformationMessage(`CUDA Offload: ${message}`);
    } catch (e) {
      void this.showError(`CUDA Offload: could not start the search: ${errorText(e)}`);
    }
  }

  private async cancel(): Promise<void> {
    const client = this.runningClient();
    if (!client) return;
    const editor = vscode.window.activeTextEditor;
    const cursor = editor && {
      uri: client.code2ProtocolConverter.asUri(editor.document.uri),
      line: editor.selection.active.line,
    };
    const target = cancelTarget(this.jobs.all(), cursor);
    let args: unknown[];
    if (target.kind === 'none') {
      void vscode.window.showInformationMessage('CUDA Offload: no search is running.');
      return;
    } else if (target.kind === 'job') {
      args = target.args;
    } else {
      const all = { label: 'All searches', args: [] as unknown[] };
      const picked = await vscode.window.showQuickPick(
        [...target.jobs.map((j) => ({ label: jobLabel(j), args: [{ jobId: j.jobId }] as unknown[] })), all],
        { placeHolder: 'Which search should stop?' },
      );
      if (!picked) return;
      args = picked.args;
    }
    try {
      const stopped = parseCancelResult(await this.executeServerCommand(client, SERVER_COMMANDS.cancel, args));
      if (stopped === 0) void vscode.window.showInformationMessage('CUDA Offload: that search had already ended.');
    } catch (e) {
      void this.showError(`CUDA Offload: could not cancel: ${errorText(e)}`);
    }
  }

  private async showPath(): Promise<void> {
    const client = this.runningClient();
    const loop = client && this.cursorLoop(client);
    if (!client || !loop) return;
    let markdown: string;
    try {
      markdown = parseShowPathResult(
        await this.executeServerCommand(client, SERVER_COMMANDS.showPath, loopArgs(loop.uri, loop.line)),
      );
    } catch (e) {
      void this.showError(`CUDA Offload: no optimization path: ${errorText(e)}`);
      return;
    }
    const uri = vscode.Uri.from({ scheme: PATH_SCHEME, path: '/' + pathDocumentName(loop.uri, loop.line) });
    this.pathDocs.set(uri, markdown);
    try {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
    } catch {
      // Without the built-in Markdown extension the source is still readable.
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }
  }

  private async doctor(): Promise<void> {
    const binary = this.findBinary();
    if (!binary) return;
    const { config } = this.serverConfig(undefined);
    const captured = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'CUDA Offload: running doctor' },
      () => runCaptured(binary.path, doctorArgs(config), { cwd: this.workspaceFolders()[0], timeoutMs: DOCTOR_TIMEOUT_MS }),
    );
    this.doctorChannel.clear();
    this.doctorChannel.append(formatDoctorReport(captured));
    this.doctorChannel.show(true);
  }

  private async showError(message: string, ...actions: ('Open Settings' | 'Restart')[]): Promise<void> {
    const picked = await vscode.window.showErrorMessage(message, ...actions, 'Show Log');
    if (picked === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', SECTION);
    else if (picked === 'Restart') await this.restart();
    else if (picked === 'Show Log') this.log.show();
  }

  private async showWarning(message: string): Promise<void> {
    const picked = await vscode.window.showWarningMessage(message, 'Open Settings');
    if (picked) await vscode.commands.executeCommand('workbench.action.openSettings', SECTION);
  }
}

/** Read-only Markdown documents holding the optimization paths the server returned. */
class PathDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, markdown: string): void {
    this.contents.set(uri.toString(), markdown);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
