package play

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxql/ctxql/lsp"
)

// pastePrefix names pasted sample data in the page's data settings
// ("paste:3f2a….json"): the bridge maps it to the file in the server's
// private directory.
const pastePrefix = "paste:"

// sanitizeSettings returns the "ctxql" settings raw with every sample data
// path resolved inside the project (or among the pasted data) and the
// budget's limits in place of the page's; refused collects what was
// dropped.
func (s *Server) sanitizeSettings(raw json.RawMessage, refused *[]string) map[string]any {
	set := map[string]any{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &set)
		if set == nil {
			set = map[string]any{}
		}
	}
	if data, ok := set["data"].(map[string]any); ok {
		clean := map[string]any{}
		for glob, v := range data {
			p, _ := v.(string)
			abs, err := s.dataPath(p)
			if err != nil {
				if refused != nil {
					*refused = append(*refused, fmt.Sprintf("sample data %q: %v", p, err))
				}
				continue
			}
			clean[glob] = abs
		}
		set["data"] = clean
	} else {
		delete(set, "data")
	}
	set["runTimeout"] = s.budget.Timeout.Milliseconds()
	set["maxDataBytes"] = s.budget.MaxDataBytes
	set["maxDocumentBytes"] = s.budget.MaxQueryBytes
	return set
}

// dataPath resolves a sample data name of the page: pasted data, or a
// file inside the project.
func (s *Server) dataPath(p string) (string, error) {
	if name, ok := strings.CutPrefix(p, pastePrefix); ok {
		return s.pastePath(name)
	}
	return s.projectPath(p)
}

// confineText disables, in the text of a didOpen or didChange, a "data:"
// line naming a file outside the project: its colon becomes a space (the
// offsets stay), so the language server sees no data line. It returns what
// it refused and false when it changed the message.
func (s *Server) confineText(m *message) (string, bool) {
	var p map[string]any
	if json.Unmarshal(m.Params, &p) != nil {
		return "", true
	}
	td, _ := p["textDocument"].(map[string]any)
	uri, _ := td["uri"].(string)
	dir := filepath.Dir(lsp.FilePath(uri))
	type slot struct {
		text string
		set  func(string)
	}
	var slots []slot
	if m.Method == "textDocument/didOpen" {
		if t, ok := td["text"].(string); ok {
			slots = append(slots, slot{t, func(v string) { td["text"] = v }})
		}
	} else if changes, ok := p["contentChanges"].([]any); ok {
		for _, c := range changes {
			cm, _ := c.(map[string]any)
			if t, ok := cm["text"].(string); ok && cm["range"] == nil {
				slots = append(slots, slot{t, func(v string) { cm["text"] = v }})
			}
		}
	}
	refused := ""
	for _, sl := range slots {
		path, at, ok := dataLine(sl.text)
		if !ok {
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if _, err := s.projectPath(path); err != nil {
			sl.set(sl.text[:at] + " " + sl.text[at+1:])
			refused = fmt.Sprintf("the data line names %s: %v", path, err)
		}
	}
	if refused == "" {
		return "", true
	}
	m.Params, _ = json.Marshal(p)
	return refused, false
}

// dataLine finds a "data:" line among the first five lines of a document,
// as the language server reads them (a "//" or "#" comment whose text
// starts with "data:"): the path it names and the offset of its colon.
func dataLine(text string) (path string, colon int, ok bool) {
	off := 0
	for i := 0; i < 5 && off <= len(text); i++ {
		end := strings.IndexByte(text[off:], '\n')
		line := text[off:]
		if end >= 0 {
			line = text[off : off+end]
		}
		trimmed := strings.TrimLeft(line, " \t")
		for _, lead := range []string{"//", "#"} {
			rest, found := strings.CutPrefix(trimmed, lead)
			if !found {
				continue
			}
			body := strings.TrimLeft(rest, " \t")
			if after, found := strings.CutPrefix(body, "data:"); found {
				at := off + (len(line) - len(trimmed)) + len(lead) + (len(rest) - len(body)) + len("data")
				return strings.TrimSpace(strings.TrimRight(after, "\r")), at, true
			}
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", 0, false
}
