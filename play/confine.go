package play

import (
	"encoding/json"
	"fmt"
	"strings"
)

// pastePrefix names pasted sample data in the page's data settings
// ("paste:3f2a….json"): the bridge maps it to the file in the server's
// private directory.
const pastePrefix = "paste:"

// sanitizeSettings returns the "ctxql" settings raw with every sample data
// path resolved inside the project (or among the pasted data) and the
// budget's limits in place of the page's; refused collects what was
// dropped. The language server's reader would refuse a path outside the
// project anyway; resolving the settings here tells the page at once, and
// maps the names of pasted data to their files.
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
