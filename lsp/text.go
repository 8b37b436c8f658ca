package lsp

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
)

// didOpen stores the first snapshot of a document and schedules its
// diagnostics.
func (s *server) didOpen(params json.RawMessage) error {
	var p didOpenParams
	if err := decode(params, &p); err != nil {
		return err
	}
	d := p.TextDocument
	snap := &Snapshot{
		URI:        d.URI,
		LanguageID: d.LanguageID,
		Version:    d.Version,
		File:       syntax.NewFile(d.URI, d.Text),
		Lang:       languageFor(s.langs, d.URI, d.LanguageID),
		Edited:     -1,
		Workspace:  s.ws,
		Limit:      s.ws.limit(),
	}
	s.session.set(snap)
	s.diags.schedule(snap)
	s.projectChanged(d.URI)
	return nil
}

// projectChanged re-diagnoses every open document when uri is a
// configuration file: its text applies at once, saved or not.
func (s *server) projectChanged(uri string) {
	if filepath.Base(FilePath(uri)) == config.FileName {
		s.ws.invalidate()
		s.rediagnoseAll()
	}
}

// didChangeWatchedFiles re-diagnoses the open documents when a watched
// file changed on disk: every document for a .ctxql.yaml (or a change
// without a usable URI), else the documents whose sample data is the
// changed file or lies in a changed directory.
func (s *server) didChangeWatchedFiles(params json.RawMessage) error {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	_ = json.Unmarshal(params, &p)
	var changed []string
	all := len(p.Changes) == 0
	for _, c := range p.Changes {
		f := FilePath(c.URI)
		if f == "" || path.Base(filepath.ToSlash(f)) == config.FileName {
			all = true
			break
		}
		changed = append(changed, f)
	}
	if all {
		s.ws.invalidate()
		s.rediagnoseAll()
		return nil
	}
	s.ws.forgetIDs()
	stale := false
	for _, snap := range s.session.all() {
		data := snap.Workspace.DataPath(snap)
		if data == "" {
			continue
		}
		for _, f := range changed {
			if rel, err := filepath.Rel(data, f); data == f || err == nil && filepath.IsLocal(rel) {
				if fresh := snap.fresh(); s.session.replace(snap, fresh) {
					s.diags.schedule(fresh)
				}
				stale = true
				break
			}
		}
	}
	if stale {
		// A pull client's findings over the old data are stale.
		s.refreshDiagnostics()
	}
	return nil
}

// didChange applies the content changes in order, each range against the
// text left by the previous change, through the position mapper.
func (s *server) didChange(params json.RawMessage) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	old := s.session.get(p.TextDocument.URI)
	if old == nil {
		return fmt.Errorf("change to a document that is not open: %s", p.TextDocument.URI)
	}
	f := old.File
	edited := -1
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			// A whole-text change: the edit is where the texts differ.
			edited = changedEnd(f.Text(), c.Text)
			f = syntax.NewFile(f.Name(), c.Text)
			continue
		}
		sp := s.spanOf(f, *c.Range)
		src := f.Text()
		var b strings.Builder
		b.Grow(len(src) - sp.Len() + len(c.Text))
		b.WriteString(src[:sp.Start])
		b.WriteString(c.Text)
		b.WriteString(src[sp.End:])
		f = syntax.NewFile(f.Name(), b.String())
		edited = sp.Start + len(c.Text)
	}
	snap := &Snapshot{
		URI:        old.URI,
		LanguageID: old.LanguageID,
		Version:    p.TextDocument.Version,
		File:       f,
		Lang:       old.Lang,
		Edited:     edited,
		Workspace:  old.Workspace,
		Limit:      s.ws.limit(),
	}
	s.session.set(snap)
	s.diags.schedule(snap)
	s.projectChanged(snap.URI)
	return nil
}

// didClose forgets the document and clears its diagnostics.
func (s *server) didClose(params json.RawMessage) error {
	var p didCloseParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.session.remove(p.TextDocument.URI)
	s.diags.clear(p.TextDocument.URI)
	s.projectChanged(p.TextDocument.URI)
	s.ws.release() // its sample data may be used by no open document now
	return nil
}

// didSave re-diagnoses the document; the text is already current.
func (s *server) didSave(params json.RawMessage) error {
	var p didSaveParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if filepath.Base(FilePath(p.TextDocument.URI)) == config.FileName {
		s.projectChanged(p.TextDocument.URI)
		return nil
	}
	s.ws.forgetIDs() // the data may have changed on disk
	if snap := s.session.get(p.TextDocument.URI); snap != nil {
		if fresh := snap.fresh(); s.session.replace(snap, fresh) {
			s.diags.schedule(fresh) // the data may have changed on disk
		}
	}
	return nil
}

// changedEnd returns the end, in the new text, of the part of new that
// differs from old (their common prefix and suffix aside): where a range
// edit turning old into new would end. It is -1 when the texts are equal.
func changedEnd(old, new string) int {
	if old == new {
		return -1
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	return len(new) - q
}
