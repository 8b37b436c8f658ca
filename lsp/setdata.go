package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// CommandSetData is the workspace/executeCommand command that makes a
// document name a file as its sample data. Its arguments are [uri, path]:
// path is the data file's absolute path. The server writes the data
// pragma as the language table does (lang.Parsed.DataPragmaEdit, the path
// relative to the document's directory), applies it with a
// workspace/applyEdit request and answers {applied, error?}.
const CommandSetData = "ctxql.setData"

// setDataResult is the answer of ctxql.setData.
type setDataResult struct {
	Applied bool   `json:"applied"`
	Error   string `json:"error,omitempty"`
}

// setData executes ctxql.setData. What stops it (a document that is not
// open or not a file, a language without comments, a relative path) is
// shown and answered as the result's error.
func (s *server) setData(ctx context.Context, args []json.RawMessage) (any, error) {
	var uri, data string
	if len(args) < 2 || json.Unmarshal(args[0], &uri) != nil || json.Unmarshal(args[1], &data) != nil {
		return s.setDataFailed(ctx, CommandSetData+" needs the arguments [uri, path]"), nil
	}
	snap := s.session.get(uri)
	if snap == nil {
		return s.setDataFailed(ctx, fmt.Sprintf("Cannot set the sample data of %s: the document is not open.", uri)), nil
	}
	tl := tableOf(snap)
	doc := FilePath(uri)
	switch {
	case tl == nil || tl.Comment(snap.File.Name()) == lang.Comment{}:
		return s.setDataFailed(ctx, fmt.Sprintf("Cannot write a data line into %s: its language has no comments.", uri)), nil
	case doc == "":
		return s.setDataFailed(ctx, fmt.Sprintf("Cannot write a data line into %s: it is not a file, so no path is relative to it.", uri)), nil
	case !filepath.IsAbs(data):
		return s.setDataFailed(ctx, fmt.Sprintf("%s needs the data file's absolute path, not %q.", CommandSetData, data)), nil
	}
	p := parsedOf(snap)
	if p == nil {
		p = &lang.Parsed{Lang: tl, File: snap.File}
	}
	edit := p.DataPragmaEdit(relativePath(filepath.Dir(doc), data))
	var res struct {
		Applied       bool   `json:"applied"`
		FailureReason string `json:"failureReason"`
	}
	params := map[string]any{
		"label": "Set the sample data",
		"edit":  map[string]any{"changes": map[string][]wireTextEdit{uri: s.textEdits(snap.File, []syntax.TextEdit{edit})}},
	}
	if _, err := s.conn.Call(ctx, "workspace/applyEdit", params, &res); err != nil {
		return s.setDataFailed(ctx, fmt.Sprintf("The editor did not apply the data line: %v", err)), nil
	}
	if !res.Applied {
		return s.setDataFailed(ctx, "The editor did not apply the data line: "+res.FailureReason), nil
	}
	return setDataResult{Applied: true}, nil
}

// setDataFailed shows why ctxql.setData wrote nothing and answers with it.
func (s *server) setDataFailed(ctx context.Context, msg string) setDataResult {
	s.showMessage(ctx, messageWarning, msg)
	return setDataResult{Error: msg}
}

// relativePath is target relative to dir, slash-separated, starting with
// "./" or "../"; target as it is (slash-separated) when it has no path
// relative to dir (another volume).
func relativePath(dir, target string) string {
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return filepath.ToSlash(target)
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return rel
	}
	return "./" + rel
}
