// Review views: a transcript's turns with their verdicts, and two runs side by side. The HTML
// comes from the server (the HTML report's rendering); webviews run no script (strict CSP,
// enableScripts off) and follow only the review's own command links.
import * as vscode from "vscode";

import type { ServerController } from "../serverController";
import {
  diffPage,
  FILTER_COMMAND,
  NewestOnly,
  openMode,
  OPEN_TURN_COMMAND,
  parseFilter,
  parseTurnTarget,
  REVIEW_METHOD,
  reviewPage,
  reviewTitle,
  runPickItem,
  RUN_DIFF_METHOD,
  RUNS_METHOD,
  SETTINGS_METHOD,
  transcriptGlobs,
  WEBVIEW_COMMANDS,
  type ReviewFilter,
} from "./page";

const LIVE_DELAY_MS = 250;
const TRANSCRIPTS_SETTING = "surfaceLint.review.transcripts";
const OPEN_SETTING = "surfaceLint.review.openTranscripts";

interface ReviewAnswer {
  css: string;
  html: string;
}

interface RunEntry {
  uri: string;
  name: string;
  lane: string;
  turns: number;
}

interface DiffAnswer {
  html: string;
  title: string;
}

/** The editor's text of a document when it is open (the server may not be sent it: surfaceLint.include). */
function openText(uri: string): string | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)?.getText();
}

function webviewOptions(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: false, enableForms: false, enableCommandUris: [...WEBVIEW_COMMANDS], localResourceRoots: [] };
}

/** One review panel per transcript; it follows the transcript's edits. */
class TranscriptReview implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Only the newest request's answer is shown (the server drops overtaken ones). */
  private readonly requests = new NewestOnly();

  constructor(
    readonly panel: vscode.WebviewPanel,
    public filter: ReviewFilter,
    private readonly request: (filter: ReviewFilter) => Promise<ReviewAnswer | null>,
    private readonly onClosed: () => void,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.toString() === this.filter.uri && event.contentChanges.length > 0) {
          this.schedule();
        }
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  schedule(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.refresh(), LIVE_DELAY_MS);
  }

  async refresh(): Promise<void> {
    this.timer = undefined;
    const filter = this.filter;
    const ticket = this.requests.next();
    const answer = await this.request(filter);
    if (!this.requests.isNewest(ticket)) {
      return;
    }
    this.log.debug(`review of ${filter.uri}: ${answer === null ? "no answer" : `${answer.html.length} characters`}`);
    this.panel.title = reviewTitle(filter);
    this.panel.webview.html =
      answer === null
        ? reviewPage("surface-lint review", "", "<p>surface-lint has no review of this file (is the server running, and is it a transcript or lane report?).</p>")
        : reviewPage(reviewTitle(filter), answer.css, answer.html);
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    this.onClosed();
  }
}

export function registerReview(context: vscode.ExtensionContext, server: ServerController): void {
  const reviews = new Map<string, TranscriptReview>();
  const output = server.output;

  async function send<T>(method: string, params: unknown): Promise<T | null> {
    const client = server.runningClient;
    if (client === undefined) {
      void vscode.window.showWarningMessage("surface-lint: the language server is not running.");
      return null;
    }
    try {
      return await client.sendRequest<T | null>(method, params);
    } catch (error) {
      output.error(`${method} failed: ${String(error)}`);
      return null;
    }
  }

  function sendSettings(): void {
    const client = server.runningClient;
    if (client === undefined) {
      return;
    }
    const value = vscode.workspace.getConfiguration().get<unknown>(TRANSCRIPTS_SETTING);
    const globs = transcriptGlobs(value);
    if (globs === null) {
      output.warn(`${TRANSCRIPTS_SETTING} must be a list of glob strings; the server keeps its default.`);
      return;
    }
    void client.sendNotification(SETTINGS_METHOD, { transcripts: globs });
  }

  /**
   * Shows (or refreshes) a transcript's review. `auto`: opened because the transcript was opened
   * (surfaceLint.review.openTranscripts); then a file the server has no review of gets no panel.
   */
  async function showReview(
    filter: ReviewFilter,
    where: { column: vscode.ViewColumn; preserveFocus: boolean; auto: boolean } = {
      column: vscode.ViewColumn.Beside,
      preserveFocus: false,
      auto: false,
    },
  ): Promise<boolean> {
    let review = reviews.get(filter.uri);
    if (review === undefined) {
      const request = (f: ReviewFilter): Promise<ReviewAnswer | null> => send<ReviewAnswer>(REVIEW_METHOD, { ...f, text: openText(f.uri) });
      if (where.auto && (await request(filter)) === null) {
        return false;
      }
      const panel = vscode.window.createWebviewPanel(
        "surfaceLint.review",
        reviewTitle(filter),
        { viewColumn: where.column, preserveFocus: where.preserveFocus },
        webviewOptions(),
      );
      review = new TranscriptReview(panel, filter, request, () => reviews.delete(filter.uri), output);
      reviews.set(filter.uri, review);
    } else {
      review.filter = filter;
      review.panel.reveal(undefined, true);
    }
    await review.refresh();
    return true;
  }

  // --- opening a run file shows its review (both side by side, the review alone, or the text) -----
  const offered = new Set<string>();

  function isRunFile(document: vscode.TextDocument): boolean {
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const globs = transcriptGlobs(vscode.workspace.getConfiguration(undefined, document.uri).get<unknown>(TRANSCRIPTS_SETTING));
    if (folder === undefined || globs === null) {
      return false;
    }
    return globs.some((glob) => vscode.languages.match({ pattern: new vscode.RelativePattern(folder, glob) }, document) > 0);
  }

  async function offerReview(editor: vscode.TextEditor | undefined): Promise<void> {
    const document = editor?.document;
    if (editor === undefined || document === undefined || document.uri.scheme !== "file") {
      return;
    }
    const uri = document.uri.toString();
    if (offered.has(uri) || reviews.has(uri) || !isRunFile(document)) {
      return;
    }
    const mode = openMode(vscode.workspace.getConfiguration(undefined, document.uri).get<unknown>(OPEN_SETTING));
    if (mode === "text") {
      offered.add(uri);
      return;
    }
    if (server.runningClient === undefined) {
      return; // asked again once the server runs (onDidChangeState)
    }
    offered.add(uri);
    const column = mode === "review" ? (editor.viewColumn ?? vscode.ViewColumn.Active) : vscode.ViewColumn.Beside;
    // `review`: in the text's own group, in front of its tab (the text stays open, a tab away:
    // the server keeps the document, so its squiggles and Problems stay).
    await showReview(
      { uri, predicate: null, category: null, failingOnly: false },
      { column, preserveFocus: mode === "both", auto: true },
    );
  }

  async function compareRuns(): Promise<void> {
    const active = vscode.window.activeTextEditor?.document.uri.toString();
    const runs = await send<RunEntry[]>(RUNS_METHOD, active !== undefined ? { uri: active } : {});
    if (runs === null || runs.length < 2) {
      void vscode.window.showInformationMessage(
        `surface-lint: two runs of one lane are needed to compare (found ${runs?.length ?? 0}; see ${TRANSCRIPTS_SETTING}).`,
      );
      return;
    }
    // The server's order (newest first) and names (workspace-relative paths).
    const items = runs.map((r) => ({ ...runPickItem(r), run: r }));
    const newer = await vscode.window.showQuickPick(items, { title: "Compare runs: the NEW run", placeHolder: "newest first" });
    if (newer === undefined) {
      return;
    }
    const older = await vscode.window.showQuickPick(
      items.filter((i) => i.run.uri !== newer.run.uri && i.run.lane === newer.run.lane),
      { title: `Compare runs: the OLD run to compare ${newer.label} with` },
    );
    if (older === undefined) {
      return;
    }
    const request = (): Promise<DiffAnswer | null> =>
      send<DiffAnswer>(RUN_DIFF_METHOD, {
        old: older.run.uri,
        new: newer.run.uri,
        oldText: openText(older.run.uri),
        newText: openText(newer.run.uri),
      });
    const diff = await request();
    if (diff === null) {
      void vscode.window.showWarningMessage("surface-lint: these two runs could not be compared (see the output).");
      return;
    }
    const panel = vscode.window.createWebviewPanel("surfaceLint.runDiff", `Diff: ${diff.title}`, vscode.ViewColumn.Active, webviewOptions());
    panel.webview.html = diffPage(diff.html);
    // Live as either run is edited: the newest answer only.
    let timer: NodeJS.Timeout | undefined;
    const requests = new NewestOnly();
    const watch = vscode.workspace.onDidChangeTextDocument((event) => {
      const changed = event.document.uri.toString();
      if ((changed !== older.run.uri && changed !== newer.run.uri) || event.contentChanges.length === 0) {
        return;
      }
      if (timer !== undefined) {
        clearTimeout(timer);
      }
      timer = setTimeout(() => {
        const ticket = requests.next();
        void request().then((answer) => {
          if (requests.isNewest(ticket) && answer !== null) {
            panel.webview.html = diffPage(answer.html);
          }
        });
      }, LIVE_DELAY_MS);
    });
    panel.onDidDispose(() => {
      watch.dispose();
      if (timer !== undefined) {
        clearTimeout(timer);
      }
    });
  }

  context.subscriptions.push(
    vscode.commands.registerCommand("surfaceLint.review.open", async (uri?: vscode.Uri) => {
      const target = uri?.toString() ?? vscode.window.activeTextEditor?.document.uri.toString();
      if (target === undefined) {
        void vscode.window.showInformationMessage("surface-lint: open a transcript or lane report to review it.");
        return;
      }
      await showReview({ uri: target, predicate: null, category: null, failingOnly: false });
    }),
    vscode.commands.registerCommand("surfaceLint.review.compareRuns", compareRuns),
    vscode.commands.registerCommand(FILTER_COMMAND, async (value: unknown) => {
      const filter = parseFilter(value);
      if (filter !== null) {
        await showReview(filter);
      }
    }),
    vscode.commands.registerCommand(OPEN_TURN_COMMAND, async (uri: unknown, line: unknown) => {
      const target = parseTurnTarget(uri, line);
      if (target === null) {
        return;
      }
      const position = new vscode.Position(target.line, 0);
      await vscode.window.showTextDocument(vscode.Uri.parse(target.uri), {
        selection: new vscode.Range(position, position),
        viewColumn: vscode.ViewColumn.One,
      });
    }),
    server.onDidChangeState(() => {
      sendSettings();
      void offerReview(vscode.window.activeTextEditor);
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => void offerReview(editor)),
    vscode.workspace.onDidCloseTextDocument((document) => offered.delete(document.uri.toString())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(TRANSCRIPTS_SETTING)) {
        sendSettings();
      }
    }),
    { dispose: () => [...reviews.values()].forEach((r) => r.panel.dispose()) },
  );
}
