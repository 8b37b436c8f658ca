package crosstool

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxql/ctxql/lang"
)

// entry is one query file of the corpus, with what it needs around it.
type entry struct {
	origin string // archive and section, for messages
	name   string // file name, relative to its directory
	src    string
	config string // .ctxql.yaml content, "" for none
	data   string // sample data content for the evaluators, "" for the default
}

// sections maps, per testdata directory, archive sections holding a whole
// query file to the file name they get. Archive members named like a file
// of a query language ("file:q.pact", "q.pact", "input.jql.yaml") are taken
// everywhere.
var sections = map[string]map[string]string{
	"pact":          {"query": "q.pact"},
	"format/pact":   {"input": "in.pact"},
	"migrate":       {"input": "in.pact"},
	"jql/eval":      {"query": "q.jql"},
	"jql/parse":     {"query": "q.jql"},
	"datalog/eval":  {"program": "prog.dl", "rule": "rule.dl"},
	"datalog/check": {"program": "prog.dl", "rule": "rule.dl"},
	"datalog/parse": {"input": "in.dl"},
	"lsp-features":  {"doc": ""},
	"lsp":           {"doc": ""},
}

// corpus returns every query file under testdata/: archive members named
// like query files, and the query sections of the evaluator, formatter,
// parser and language-server archives. Sample data and a configuration in
// the same archive come along.
func corpus(t testing.TB) []entry {
	t.Helper()
	root := filepath.Join("..", "..", "testdata")
	var out []entry
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") {
			return err
		}
		a, err := txtar.ParseFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		out = append(out, fromArchive(rel+"/"+filepath.Base(p), sections[rel], a)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].origin < out[j].origin })
	return out
}

func fromArchive(origin string, secs map[string]string, a *txtar.Archive) []entry {
	get := func(names ...string) (string, bool) {
		for _, n := range names {
			for _, f := range a.Files {
				if f.Name == n {
					return string(f.Data), true
				}
			}
		}
		return "", false
	}
	cfg, _ := get(".ctxql.yaml", "file:.ctxql.yaml")
	data, hasData := get("data", "data.json", "file:data.json", "file:sample.json")
	if df, ok := get("datafile"); ok && !hasData {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pact", strings.TrimSpace(df))); err == nil {
			data = string(b)
		}
	}
	if d, ok := get("dialect"); ok && cfg == "" {
		cfg = "dialect: {default: " + strings.TrimSpace(d) + "}\n"
	}
	docName, _ := get("name")
	var out []entry
	for _, f := range a.Files {
		name := strings.TrimPrefix(f.Name, "file:")
		if n, ok := secs[f.Name]; ok {
			switch {
			case n == "" && strings.TrimSpace(docName) != "":
				name = filepath.Base(strings.TrimSpace(docName))
			case n != "":
				name = n
			}
		}
		l := lang.ForName(name)
		if l == nil || name == f.Name && strings.Contains(f.Name, ":") {
			continue
		}
		src := string(f.Data)
		if name == "rule.dl" {
			src = strings.TrimRight(src, " \t\r\n")
			if !strings.HasSuffix(src, ".") && !strings.HasSuffix(src, ";") {
				src += "."
			}
			src += "\n"
		}
		out = append(out, entry{origin: origin + ":" + f.Name, name: name, src: src, config: cfg, data: data})
	}
	return out
}
