/**
 * The Query Results webview panel: one panel, reused, showing the latest
 * result of the document in the active editor. The HTML comes from
 * render.ts.
 */
import * as vscode from 'vscode';
import { fileName, QueryResult, renderResults } from './render';

interface Shown {
  result: QueryResult;
  source: 'preview' | 'run';
}

/** The Query Results panel; create one per extension activation. */
export class ResultsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly byUri = new Map<string, Shown>();
  private current: string | undefined;

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

  /** Records the latest result of its document and shows it. */
  update(r: QueryResult, source: 'preview' | 'run'): void {
    this.byUri.set(r.uri, { result: r, source });
    this.current = r.uri;
    this.render();
  }

  /**
   * Follows the active editor: shows the latest result of the document uri
   * (or a hint to run one of its queries).
   */
  follow(uri: string): void {
    if (this.current === uri) {
      return;
    }
    this.current = uri;
    this.render();
  }

  /** Forgets the results of a closed document. */
  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  private render(): void {
    if (!this.panel) {
      return;
    }
    const shown = this.current ? this.byUri.get(this.current) : undefined;
    this.panel.title = this.current ? `Query Results: ${fileName(this.current)}` : 'Query Results';
    this.panel.webview.html = renderResults(shown?.result, {
      source: shown?.source,
      cspSource: this.panel.webview.cspSource,
      emptyFor: this.current,
    });
  }

  /** Closes the panel. */
  dispose(): void {
    this.panel?.dispose();
  }
}
