package lsp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// RuleURL is the documentation address of a diagnostic code, sent as the
// diagnostic's codeDescription.
func RuleURL(code string) string { return lint.RuleURL(code) }

// diagnoser computes and pushes diagnostics, one worker per document. A new
// version cancels the context of the work for the older one; a worker that
// finishes picks up only the newest pending version, so bursts of changes
// coalesce.
type diagnoser struct {
	s       *server
	mu      sync.Mutex
	docs    map[string]*docWork
	stopped bool
	workers sync.WaitGroup // the running workers
}

type docWork struct {
	pending *Snapshot // newest version not yet diagnosed; nil when none
	cancel  context.CancelFunc
	running bool
}

func newDiagnoser(s *server) *diagnoser {
	return &diagnoser{s: s, docs: map[string]*docWork{}}
}

// schedule queues snap for diagnosis, cancelling work on older versions.
func (d *diagnoser) schedule(snap *Snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	w := d.docs[snap.URI]
	if w == nil {
		w = &docWork{}
		d.docs[snap.URI] = w
	}
	if w.cancel != nil {
		w.cancel()
	}
	w.pending = snap
	if !w.running {
		w.running = true
		d.workers.Add(1)
		go d.run(snap.URI, w)
	}
}

// run diagnoses the pending versions of one document until none is left.
func (d *diagnoser) run(uri string, w *docWork) {
	defer d.workers.Done()
	for {
		d.mu.Lock()
		snap := w.pending
		if snap == nil || d.stopped {
			w.running = false
			d.mu.Unlock()
			return
		}
		w.pending = nil
		ctx, cancel := context.WithCancel(context.Background())
		w.cancel = cancel
		d.mu.Unlock()

		d.diagnose(ctx, snap)
		cancel()
	}
}

func (d *diagnoser) diagnose(ctx context.Context, snap *Snapshot) {
	s := d.s
	s.mu.Lock()
	delay := s.config.DiagnosticsDelay
	s.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	s.mu.Lock()
	pull := s.pull
	s.mu.Unlock()
	if pull && snap.Workspace != nil && snap.Workspace.DataPath(snap) != "" {
		// The edited query's preview first: its evaluation is the one
		// the data findings need too (they share the evaluation cache),
		// and nothing below has to wait for it.
		if snap.Edited >= 0 {
			s.preview(ctx, snap, snap.Edited)
			if ctx.Err() != nil {
				return
			}
		}
		// Pull: the client asks for the diagnostics itself, right after
		// the change; let its pull go first (it is answered from the
		// cache) or give it pullGrace. Then evaluate the data findings,
		// so that its pulls find them in the cache, and ask it to pull
		// again when a pull went without them.
		t := time.NewTimer(pullGrace)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-snap.pull.answeredCh():
			t.Stop()
		case <-t.C:
		}
		s.documentDiagnostics(ctx, snap, true)
		if ctx.Err() != nil {
			return
		}
		snap.pull.mu.Lock()
		snap.pull.filled = true
		again := snap.pull.waiting
		snap.pull.mu.Unlock()
		if again && s.session.get(snap.URI) == snap {
			s.refreshDiagnostics()
		}
		return
	}
	if !pull {
		// Push: first what the text alone gives, then with what needs the
		// sample data (queries that match nothing), in a second
		// notification. A pull client asks for them itself.
		ds := s.documentDiagnostics(ctx, snap, false)
		if ctx.Err() != nil {
			return // a newer version supersedes this one
		}
		if !d.publishFor(snap, ds) {
			return
		}
		if snap.Workspace != nil && snap.Workspace.DataPath(snap) != "" {
			all := s.documentDiagnostics(ctx, snap, true)
			if ctx.Err() == nil && len(all) != len(ds) {
				d.publishFor(snap, all)
			}
		}
	}
	if snap.Edited >= 0 && ctx.Err() == nil {
		s.preview(ctx, snap, snap.Edited)
	}
}

// publishFor pushes the diagnostics of snap unless a newer version or a
// close superseded it; it reports whether it did.
func (d *diagnoser) publishFor(snap *Snapshot, ds []syntax.Diagnostic) bool {
	s := d.s
	wire := s.toWire(snap, ds)
	d.mu.Lock()
	stale := d.stopped || d.docs[snap.URI] == nil || s.session.get(snap.URI) != snap
	d.mu.Unlock()
	if stale {
		return false
	}
	v := snap.Version
	s.publish(publishDiagnosticsParams{URI: snap.URI, Version: &v, Diagnostics: wire})
	return true
}

// The codes of the server's own diagnostics.
const (
	// CodeDataUnreadable reports sample data that cannot be read: missing,
	// not a regular file, over the size limit.
	CodeDataUnreadable = "DATA002"
	// CodeTooLarge reports a document over the size limit, which gets no
	// language features.
	CodeTooLarge = "LSP001"
	// CodeTooDeep reports a document whose brackets nest too deeply to
	// parse safely; it gets no language features.
	CodeTooDeep = "LSP002"
	// CodeConfig reports an invalid .ctxql.yaml or invalid editor settings.
	CodeConfig = "CONFIG"
)

// documentDiagnostics returns the sorted diagnostics of a snapshot: those
// of its language, a problem with its configuration and, when withData is
// set, those that need the sample data (or why it cannot be read). A
// degraded document (over the size limit, nested too deeply) gets only one
// diagnostic saying so.
func (s *server) documentDiagnostics(ctx context.Context, snap *Snapshot, withData bool) []syntax.Diagnostic {
	if code, msg, bad := snap.Degraded(); bad {
		return []syntax.Diagnostic{{Span: syntax.Sp(0, 0), Severity: syntax.SeverityWarning, Code: code, Message: msg}}
	}
	ds := diagnosticsOf(ctx, snap)
	var extra []syntax.Diagnostic
	if snap.Workspace != nil && snap.Lang != nil {
		if err := snap.Workspace.ProjectErr(snap); err != nil {
			extra = append(extra, syntax.Diagnostic{Span: syntax.Sp(0, 0), Severity: syntax.SeverityWarning, Code: CodeConfig,
				Message: err.Error()})
		}
		if withData {
			if path := snap.Workspace.DataPath(snap); path != "" {
				if err := snap.Workspace.CheckData(path); err != nil {
					pr, ok := dataPragma(snap)
					sp := pr.Span
					if !ok {
						sp = syntax.Sp(0, 0)
					}
					extra = append(extra, syntax.Diagnostic{Span: sp, Severity: syntax.SeverityWarning, Code: CodeDataUnreadable,
						Message: err.Error()})
				} else if dd, ok := snap.Lang.(DataDiagnoser); ok {
					extra = append(extra, dd.DataDiagnostics(ctx, snap)...)
				}
			}
		}
	}
	extra = append(extra, s.tests.on(snap)...)
	if len(extra) == 0 {
		return ds
	}
	all := append(append([]syntax.Diagnostic(nil), ds...), extra...)
	syntax.SortDiagnostics(all)
	return all
}

// DataDiagnoser reports findings that need the document's sample data,
// such as queries that match nothing in it. They are published after the
// other diagnostics, in a second notification.
type DataDiagnoser interface {
	DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic
}

// clear stops the work for a closed document and publishes no diagnostics.
func (d *diagnoser) clear(uri string) {
	d.mu.Lock()
	if w := d.docs[uri]; w != nil {
		if w.cancel != nil {
			w.cancel()
		}
		w.pending = nil
		delete(d.docs, uri)
	}
	stopped := d.stopped
	d.mu.Unlock()
	if !stopped {
		d.s.publish(publishDiagnosticsParams{URI: uri, Diagnostics: []wireDiagnostic{}})
	}
}

// stop cancels all work and waits up to limit for the workers to return,
// so that no file or database a diagnosis opened is still open when the
// server ends; nothing is published afterwards.
func (d *diagnoser) stop(limit time.Duration) {
	d.mu.Lock()
	d.stopped = true
	for _, w := range d.docs {
		if w.cancel != nil {
			w.cancel()
		}
		w.pending = nil
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
	}
}

func (s *server) publish(p publishDiagnosticsParams) {
	if p.Diagnostics == nil {
		p.Diagnostics = []wireDiagnostic{} // never null
	}
	if err := s.conn.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, p); err != nil {
		s.log.printf("publish diagnostics: %v", err)
	}
}

// diagnosticsOf returns the sorted diagnostics of a snapshot.
func diagnosticsOf(ctx context.Context, snap *Snapshot) []syntax.Diagnostic {
	dg, ok := snap.Lang.(Diagnoser)
	if !ok {
		return nil
	}
	return dg.Diagnostics(ctx, snap) // sorted, shared with other requests: not modified
}

// toWire converts diagnostics to LSP form through the position mapper.
func (s *server) toWire(snap *Snapshot, ds []syntax.Diagnostic) []wireDiagnostic {
	out := make([]wireDiagnostic, 0, len(ds))
	source := "ctxql"
	if snap.Lang != nil {
		source = string(snap.Lang.ID())
	}
	for _, d := range ds {
		w := wireDiagnostic{
			Range:    s.rangeOf(snap.File, d.Span),
			Severity: int(d.Severity) + 1, // Error=1 ... Hint=4
			Code:     d.Code,
			Source:   source,
			Message:  d.Message,
		}
		if d.Code != "" {
			w.CodeDescription = &codeDescription{Href: RuleURL(d.Code)}
		}
		for _, t := range d.Tags {
			switch t {
			case syntax.TagUnnecessary:
				w.Tags = append(w.Tags, 1)
			case syntax.TagDeprecated:
				w.Tags = append(w.Tags, 2)
			}
		}
		for _, r := range d.Related {
			w.RelatedInformation = append(w.RelatedInformation, relatedInformation{
				Location: Location{URI: snap.URI, Range: s.rangeOf(snap.File, r.Span)},
				Message:  r.Message,
			})
		}
		out = append(out, w)
	}
	return out
}

// pullDiagnostics answers textDocument/diagnostic with a full report.
func (s *server) pullDiagnostics(ctx context.Context, params json.RawMessage) (any, error) {
	var p textDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap := s.session.get(p.TextDocument.URI)
	if snap == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", p.TextDocument.URI)
	}
	return fullDocumentDiagnosticReport{Kind: "full", Items: s.toWire(snap, s.pulled(ctx, snap))}, nil
}

// pulled returns the diagnostics of a pull: the findings of the text at
// once and the data findings evaluated so far (the evaluations are cached
// across versions, so a keystroke leaves those of the other queries in
// place). When some are not evaluated yet and the client accepts
// workspace/diagnostic/refresh, the diagnoser evaluates them and asks the
// client to pull again; other clients wait for them.
func (s *server) pulled(ctx context.Context, snap *Snapshot) []syntax.Diagnostic {
	s.mu.Lock()
	refresh := s.refresh
	s.mu.Unlock()
	if !refresh {
		return s.documentDiagnostics(ctx, snap, true)
	}
	defer snap.pull.answer()
	cctx, missed := cachedOnly(ctx)
	ds := s.documentDiagnostics(cctx, snap, true)
	if !missed.Load() || ctx.Err() != nil {
		return ds
	}
	snap.pull.mu.Lock()
	filled := snap.pull.filled
	snap.pull.waiting = !filled
	snap.pull.mu.Unlock()
	if filled {
		// Evaluated since, or dropped from the cache meanwhile.
		return s.documentDiagnostics(ctx, snap, true)
	}
	return ds
}

// pullGrace is how long the diagnoser waits, after a change, for a pull
// client's pull before it evaluates the document's data findings.
const pullGrace = 50 * time.Millisecond

// refreshDiagnostics asks a pull client to pull the diagnostics of its
// documents again.
func (s *server) refreshDiagnostics() {
	s.mu.Lock()
	refresh := s.pull && s.refresh && s.initialized && !s.shutdown
	s.mu.Unlock()
	if !refresh {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, "workspace/diagnostic/refresh", nil, nil); err != nil {
			s.log.printf("workspace/diagnostic/refresh: %v", err)
		}
	}()
}
