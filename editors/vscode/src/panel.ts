/**
 * The Query Results webview panel: one panel, reused, showing the latest
 * result. The HTML comes from render.ts.
 */
import * as vscode from 'vscode';
import { QueryResult, renderResults } from './render';

/** The Query Results panel; create one per extension activation. */
export class ResultsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: QueryResult | undefined;
  private lastSource: 'preview' | 'run' | undefined;

  /** Shows the panel beside the editor, creating it when needed. */
  show(preserveFocus = true): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    this.panel = vscode.window.createWebviewPanel(
      'ctxql.results',
      'Query Results',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: false, retainContextWhenHidden: false, localResourceRoots: [] },
    );
    this.panel.onDidDispose(() => {
      this.panel = undefined;
    });
    this.render();
  }

  /** Reports whether the panel is open. */
  get visible(): boolean {
    return this.panel !== undefined;
  }

  /** Replaces the shown result. */
  update(r: QueryResult, source: 'preview' | 'run'): void {
    this.last = r;
    this.lastSource = source;
    this.render();
  }

  private render(): void {
    if (!this.panel) {
      return;
    }
    this.panel.webview.html = renderResults(this.last, {
      source: this.lastSource,
      cspSource: this.panel.webview.cspSource,
    });
  }

  /** Closes the panel. */
  dispose(): void {
    this.panel?.dispose();
  }
}
