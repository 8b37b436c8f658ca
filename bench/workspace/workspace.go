// Package workspace generates query workspaces of a chosen size for the
// benchmarks that measure ctxql at scale: directories of 100 query files
// each (seven in ten PACT, two JQL, one Datalog), every file naming shared
// sample data with a "// data:" line, plus a .ctxql.yaml.
package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files lists what Generate wrote, as slash paths relative to the
// workspace.
type Files struct {
	Queries []string // the query files, in the order written
	Data    []string // the sample data files
}

// Tree is the PACT sample data: a context tree of 40 segments.
func Tree() string {
	var b strings.Builder
	b.WriteString(`{"root": {"children": [{"id": "seq-1", "nodeType": "^seq", "children": [`)
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "seg:%d", "nodeType": "seg", "children": [`+
			`{"id": "block:u%d", "nodeType": "block", "kind": "text", "role": "user", "offset": 0, "ttl": %d, "content": "U%d"},`+
			`{"id": "block:a%d", "nodeType": "block", "kind": "summary", "role": "assistant", "offset": 1, "ttl": %d, "content": "A%d"}]}`,
			i, i, i%4, i, i, (i+1)%4, i)
	}
	b.WriteString("]}]}}\n")
	return b.String()
}

// Activities is the JQL sample data: 200 activities.
func Activities() string {
	types := []string{"planGenerated", "agentMessaged", "progressUpdated", "sessionCompleted"}
	var b strings.Builder
	b.WriteString("[")
	for i := range 200 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "act-%d", "type": %q, "createTime": "2024-01-%02dT00:00:00Z"}`, i, types[i%len(types)], 1+i%28)
	}
	b.WriteString("]\n")
	return b.String()
}

// Edges is the Datalog sample data: a chain of 60 edges.
func Edges() string {
	var t []string
	for i := range 60 {
		t = append(t, fmt.Sprintf(`["n%d", "n%d"]`, i, i+1))
	}
	return `{"relations": {"edge": {"param_types": ["String", "String"], "tuples": [` + strings.Join(t, ", ") + "]}}}\n"
}

// Query returns the source of the i-th query file and its name (relative
// to its directory). Each file holds one query.
func Query(i int) (name, src string) {
	switch i % 10 {
	case 7, 8:
		return fmt.Sprintf("q%05d.jql", i), fmt.Sprintf("// data: ../data/activities.json\n{from: 'activities', where: {type: '%s'}, limit: %d}\n",
			[]string{"planGenerated", "agentMessaged", "progressUpdated"}[i%3], 1+i%50)
	case 9:
		return fmt.Sprintf("q%05d.dl", i), fmt.Sprintf("// data: ../data/edges.json\nrelation edge(String, String);\nreach%d(x, y) <-- edge(x, y);\nreach%d(x, z) <-- reach%d(x, y), edge(y, z);\n", i, i, i)
	}
	return fmt.Sprintf("q%05d.pact", i), fmt.Sprintf("// data: ../data/tree.json\n@t0 .seg > .block[ttl>=%d]\n", i%4)
}

// Generate writes a workspace of n query files into dir (which should be
// empty): dNNN/qNNNNN.{pact,jql,dl} in directories of 100, the sample data
// under data/, and a .ctxql.yaml.
func Generate(dir string, n int) (*Files, error) {
	fs := &Files{}
	put := func(rel, content string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
	for rel, content := range map[string]string{
		"data/tree.json":       Tree(),
		"data/activities.json": Activities(),
		"data/edges.json":      Edges(),
	} {
		if err := put(rel, content); err != nil {
			return nil, err
		}
		fs.Data = append(fs.Data, rel)
	}
	if err := put(".ctxql.yaml", "exclude: [data/]\n"); err != nil {
		return nil, err
	}
	for i := range n {
		name, src := Query(i)
		// The files sit one level down, beside nothing but queries, so
		// "../data/..." reaches the data from every directory.
		rel := fmt.Sprintf("d%03d/%s", i/100, name)
		if err := put(rel, src); err != nil {
			return nil, err
		}
		fs.Queries = append(fs.Queries, rel)
	}
	return fs, nil
}
