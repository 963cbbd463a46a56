// Status-bar item with the active file's lane and headline metric, and the full score view.
import * as vscode from "vscode";

import {
  LANE_SCORE_METHOD,
  parseLaneScore,
  statusTextFor,
  type LaneScore,
  type LaneScoreParams,
} from "./core/laneScore";
import { safeMarkdownHtml } from "./core/safeHtml";
import { CONFIG_SECTION, documentSelectorFor, includeGlobs } from "./core/settings";
import type { ServerController } from "./serverController";

const REFRESH_DELAY_MS = 300;
const METHOD_NOT_FOUND = -32601;

function isLintedDocument(document: vscode.TextDocument): boolean {
  const selector = documentSelectorFor(
    includeGlobs(vscode.workspace.getConfiguration(CONFIG_SECTION).get("include")),
  );
  return vscode.languages.match(selector, document) > 0;
}

export class LaneStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Set when the server answers "method not found": it has no lane scores. */
  private unsupported = false;
  private panel: vscode.WebviewPanel | undefined;
  /** The document whose score the panel shows; it follows that document's edits. */
  private panelDocument: string | undefined;

  constructor(private readonly server: ServerController) {
    this.item = vscode.window.createStatusBarItem("surfaceLint.laneScore", vscode.StatusBarAlignment.Left, 50);
    this.item.name = "surface-lint lane score";
    this.item.command = "surfaceLint.scoreLane";
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.scheduleRefresh()),
      vscode.workspace.onDidSaveTextDocument((document) => this.refreshIfActive(document.uri)),
      vscode.languages.onDidChangeDiagnostics((event) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active !== undefined && event.uris.some((uri) => uri.toString() === active)) {
          this.scheduleRefresh();
        }
      }),
      server.onDidChangeState(() => {
        this.unsupported = false;
        this.scheduleRefresh();
      }),
    );
    this.scheduleRefresh();
  }

  private refreshIfActive(uri: vscode.Uri): void {
    if (vscode.window.activeTextEditor?.document.uri.toString() === uri.toString()) {
      this.scheduleRefresh();
    }
  }

  scheduleRefresh(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** Asks the server for the score of `document`; undefined when there is none to show. */
  async scoreOf(document: vscode.TextDocument): Promise<LaneScore | null | undefined> {
    const client = this.server.runningClient;
    if (client === undefined || this.unsupported || !isLintedDocument(document)) {
      return undefined;
    }
    const params: LaneScoreParams = { uri: client.code2ProtocolConverter.asUri(document.uri) };
    try {
      return parseLaneScore(await client.sendRequest(LANE_SCORE_METHOD, params));
    } catch (error) {
      if ((error as { code?: unknown }).code === METHOD_NOT_FOUND) {
        this.unsupported = true;
        this.server.output.warn(`The server does not implement ${LANE_SCORE_METHOD}: no lane score in the status bar.`);
      } else {
        this.server.output.warn(`${LANE_SCORE_METHOD} failed: ${String(error)}`);
      }
      return undefined;
    }
  }

  private async refresh(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    const score = document === undefined ? undefined : await this.scoreOf(document);
    if (document !== vscode.window.activeTextEditor?.document) {
      return; // the user moved on while we waited
    }
    if (document === undefined || score === undefined || score === null) {
      this.item.hide();
      return;
    }
    const { text, tooltip } = statusTextFor(score);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.show();
    if (this.panel !== undefined && this.panelDocument === document.uri.toString()) {
      await this.showMarkdown(`surface-lint: ${score.lane}`, score.markdown, false);
    }
  }

  /** The `surfaceLint.scoreLane` command: the full score of the active file, as rendered markdown. */
  async showScore(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined) {
      void vscode.window.showInformationMessage("surface-lint: open a case file or transcript to score its lane.");
      return;
    }
    if (this.server.runningClient === undefined) {
      void vscode.window.showWarningMessage("surface-lint: the server is not running.", "Restart server").then(
        (choice) => {
          if (choice !== undefined) {
            void this.server.restart("asked from the score command");
          }
        },
      );
      return;
    }
    if (!isLintedDocument(document)) {
      void vscode.window.showInformationMessage(
        "surface-lint: this file does not match surfaceLint.include, so it has no lane score.",
      );
      return;
    }
    const score = await this.scoreOf(document);
    if (score === undefined) {
      void vscode.window.showWarningMessage("surface-lint: the server gave no lane score (see the output).");
      return;
    }
    if (score === null) {
      void vscode.window.showInformationMessage("surface-lint: this file is not part of a lane.");
      return;
    }
    this.panelDocument = document.uri.toString();
    await this.showMarkdown(`surface-lint: ${score.lane}`, score.markdown, true);
    this.scheduleRefresh();
  }

  /**
   * Renders with the built-in markdown extension into a webview (scripts off, CSP default-src 'none',
   * and only Markdown's own tags kept: raw HTML from data shows as text); plain markdown document if that is missing.
   */
  private async showMarkdown(title: string, markdown: string, reveal: boolean): Promise<void> {
    let html: string | undefined;
    try {
      html = await vscode.commands.executeCommand<string>("markdown.api.render", markdown);
    } catch {
      html = undefined;
    }
    if (typeof html !== "string") {
      if (!reveal) {
        return; // the plain-markdown fallback is a snapshot: no live updates
      }
      const document = await vscode.workspace.openTextDocument({ language: "markdown", content: markdown });
      await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      return;
    }
    if (this.panel === undefined) {
      this.panel = vscode.window.createWebviewPanel(
        "surfaceLint.laneScore",
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, enableFindWidget: true },
      );
      this.panel.onDidDispose(
        () => {
          this.panel = undefined;
          this.panelDocument = undefined;
        },
        undefined,
        this.disposables,
      );
    }
    this.panel.title = title;
    this.panel.webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
  table { border-collapse: collapse; } th, td { border: 1px solid var(--vscode-panel-border); padding: 2px 8px; }
  code { font-family: var(--vscode-editor-font-family); }
</style></head>
<body class="surface-lint-score">${safeMarkdownHtml(html)}</body></html>`;
    if (reveal) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.panel?.dispose();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
