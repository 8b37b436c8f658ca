// Package resultdiff compares what saved queries select at a base git
// revision and in the working tree. Every .pact, .jql (.jql.json,
// .jql.yaml, .jql.yml) and .dl file with sample data — named by a
// "// data: PATH" (or "# data: PATH") comment on one of its first five
// lines, relative to the file, or by a data glob of the .ctxql.yaml that
// applies to it — is evaluated twice: as it is at the base revision over the
// data as it is there (both read from git), and as it is in the working
// tree over the data there. A query whose results differ is reported with
// the results added and removed: node ids for PACT, documents for JQL,
// tuples of the derived relation for Datalog.
//
// Queries are matched between the two versions of a file (a renamed file
// is followed) first by their text, then in order: an edited query is
// compared with the query it replaced. A Datalog program is compared per
// derived relation.
package resultdiff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Options say what to compare.
type Options struct {
	// Dir is a directory inside the git work tree ("": the current one).
	Dir string
	// Base is the base revision ("": HEAD).
	Base string
	// Paths limit the comparison to these files or directories (relative
	// to Dir or absolute); none means the whole work tree.
	Paths []string
	// MaxDataBytes limits each file read (0: no limit); Raise names the
	// setting that raises it, for the error message.
	MaxDataBytes int64
	Raise        string
	// Timeout bounds the evaluation of one file (0: 10 s).
	Timeout time.Duration
	// IgnoreAdded leaves out queries that only the working tree has (new
	// queries change no earlier result).
	IgnoreAdded bool
	// BaseDir is an empty directory to extract the base revision into,
	// made by TempDir and removed by the caller ("": Run makes one and
	// removes it when it returns).
	BaseDir string
}

// Status says how a query's results changed.
type Status string

// The statuses of a Change.
const (
	Changed Status = "changed" // the query is in both versions, its results differ
	Added   Status = "added"   // the query is new in the working tree
	Removed Status = "removed" // the query is gone from the working tree
)

// Change is one query whose results changed.
type Change struct {
	// Path is the file in the working tree (for a removed query, at the
	// base), a slash path relative to the work tree's top.
	Path string
	// BasePath is the file's path at the base when it was renamed.
	BasePath string
	// Language is "pact", "jql" or "datalog".
	Language string
	// Query is the query's text (for Datalog, the derived relation's name).
	Query string
	// File is the text Span lies in: the working-tree version, or the base
	// version for a removed query.
	File *syntax.File
	Span syntax.Span
	// Status says whether the query changed, was added or was removed.
	Status Status
	// Added and Removed are the results only the working tree, or only the
	// base, has: node ids, compact JSON documents, JSON tuples.
	Added, Removed []string
	// Count and BaseCount are the result counts in each version.
	Count, BaseCount int
	// Error and BaseError are evaluation errors in each version ("": none).
	Error, BaseError string
}

// Report is the outcome of a comparison.
type Report struct {
	Base    string   // the base revision as given
	Commit  string   // the commit it names
	Queries int      // queries compared (with sample data in either version)
	Changes []Change // in path and position order

	ignoreAdded bool
}

// query is one query of one version of a file, evaluated.
type query struct {
	key   string // what matches it across versions: its text, a relation name
	text  string
	span  syntax.Span
	items []string
	err   string
}

// evaluated is one version of one query file.
type evaluated struct {
	path    string // slash path relative to the tree's top
	lang    string
	file    *syntax.File
	queries []query
}

// Run compares the base revision with the working tree.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Base == "" {
		opts.Base = "HEAD"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	root, err := repoRoot(ctx, dir)
	if err != nil {
		return nil, err
	}
	commit, err := resolve(ctx, root, opts.Base)
	if err != nil {
		return nil, err
	}
	var filter []string
	for _, p := range opts.Paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return nil, fmt.Errorf("%s: outside the work tree %s", p, root)
		}
		filter = append(filter, filepath.ToSlash(rel))
	}
	baseDir := opts.BaseDir
	if baseDir == "" {
		if baseDir, err = TempDir(); err != nil {
			return nil, err
		}
		defer os.RemoveAll(baseDir)
	}
	if err := extract(ctx, root, commit, baseDir); err != nil {
		return nil, err
	}
	moved, err := renames(ctx, root, commit)
	if err != nil {
		return nil, err
	}
	// A renamed file is selected by either of its names.
	baseFilter := append([]string(nil), filter...)
	for newPath, oldPath := range moved {
		if len(filter) > 0 && selected(newPath, filter) {
			baseFilter = append(baseFilter, oldPath)
		}
	}
	work, err := newTree(root, opts)
	if err != nil {
		return nil, err
	}
	defer work.close()
	base, err := newTree(baseDir, opts)
	if err != nil {
		return nil, err
	}
	defer base.close()
	workFiles, err := work.listGit(ctx, filter)
	if err != nil {
		return nil, err
	}
	baseFiles, err := base.list(baseFilter)
	if err != nil {
		return nil, err
	}
	inBase := map[string]bool{}
	for _, p := range baseFiles {
		inBase[p] = true
	}
	rep := &Report{Base: opts.Base, Commit: commit, ignoreAdded: opts.IgnoreAdded}
	paired := map[string]bool{}
	for _, p := range workFiles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bp := p
		if old, ok := moved[p]; ok {
			bp = old
		}
		var b *evaluated
		if inBase[bp] {
			paired[bp] = true
			b = base.evaluate(ctx, bp)
		}
		w := work.evaluate(ctx, p)
		rep.add(b, w)
	}
	for _, bp := range baseFiles {
		if paired[bp] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.add(base.evaluate(ctx, bp), nil)
	}
	sort.SliceStable(rep.Changes, func(i, j int) bool {
		a, b := rep.Changes[i], rep.Changes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Span.Start < b.Span.Start
	})
	return rep, nil
}

// selected reports whether the slash path p is one of filter or below one
// (an empty filter selects everything).
func selected(p string, filter []string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, f := range filter {
		if f == "." || p == f || strings.HasPrefix(p, f+"/") {
			return true
		}
	}
	return false
}

// add compares the two versions of a file (nil: absent or without data)
// and records the queries whose results changed.
func (r *Report) add(base, work *evaluated) {
	if base == nil && work == nil {
		return
	}
	var bq, wq []query
	if base != nil {
		bq = base.queries
	}
	if work != nil {
		wq = work.queries
	}
	for _, m := range match(bq, wq) {
		r.Queries++
		o, n := m[0], m[1]
		var c Change
		switch {
		case o != nil && n != nil:
			added, removed := setDiff(o.items, n.items)
			if len(added) == 0 && len(removed) == 0 && o.err == n.err {
				continue
			}
			c = Change{Status: Changed, Added: added, Removed: removed}
		case n != nil:
			if r.ignoreAdded {
				continue
			}
			c = Change{Status: Added, Added: unique(n.items)}
		default:
			c = Change{Status: Removed, Removed: unique(o.items)}
		}
		if n != nil {
			c.Path, c.Language, c.File, c.Span, c.Query, c.Count, c.Error = work.path, work.lang, work.file, n.span, n.text, len(n.items), n.err
		}
		if o != nil {
			c.BaseCount, c.BaseError = len(o.items), o.err
			if n == nil {
				c.Path, c.Language, c.File, c.Span, c.Query = base.path, base.lang, base.file, o.span, o.text
			}
		}
		if base != nil && work != nil && base.path != work.path {
			c.BasePath = base.path
		}
		r.Changes = append(r.Changes, c)
	}
}

// match pairs the queries of two versions of a file: equal keys first (in
// order), then the rest in order; what remains is added or removed.
func match(old, new []query) [][2]*query {
	var out [][2]*query
	usedOld := make([]bool, len(old))
	pairOf := make([]int, len(new))
	for j := range new {
		pairOf[j] = -1
		for i := range old {
			if !usedOld[i] && old[i].key == new[j].key {
				usedOld[i], pairOf[j] = true, i
				break
			}
		}
	}
	var restOld []int
	for i := range old {
		if !usedOld[i] {
			restOld = append(restOld, i)
		}
	}
	k := 0
	for j := range new {
		if pairOf[j] < 0 && k < len(restOld) {
			pairOf[j] = restOld[k]
			usedOld[restOld[k]] = true
			k++
		}
	}
	for j := range new {
		var o *query
		if pairOf[j] >= 0 {
			o = &old[pairOf[j]]
		}
		out = append(out, [2]*query{o, &new[j]})
	}
	for i := range old {
		if !usedOld[i] {
			out = append(out, [2]*query{&old[i], nil})
		}
	}
	return out
}

// setDiff returns the items of b not in a and of a not in b, each in its
// own order, without repeats.
func setDiff(a, b []string) (added, removed []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		inA[x] = true
	}
	for _, x := range b {
		inB[x] = true
	}
	for _, x := range unique(b) {
		if !inA[x] {
			added = append(added, x)
		}
	}
	for _, x := range unique(a) {
		if !inB[x] {
			removed = append(removed, x)
		}
	}
	return added, removed
}

func unique(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// tree is one version of the work tree on disk: the working tree itself or
// the base revision extracted.
type tree struct {
	root    string
	files   *files.Reader // confined to root
	timeout time.Duration
	loaded  map[string]loadResult // data by kind and path
}

type loadResult struct {
	val lang.Data
	err error
}

func newTree(root string, opts Options) (*tree, error) {
	r, err := files.Confined(root, opts.MaxDataBytes, opts.Raise)
	if err != nil {
		return nil, err
	}
	return &tree{root: r.Dir(), files: r, timeout: opts.Timeout, loaded: map[string]loadResult{}}, nil
}

func (t *tree) close() { t.files.Close() }

// languageOf returns the query language of a file name (the language
// table's id: "pact", "jql" or "datalog"), or "".
func languageOf(name string) string {
	if l := lang.ForName(name); l != nil && slices.Contains(lang.Queries(), l) {
		return string(l.ID)
	}
	return ""
}

// list returns the query files of the tree that filter selects, as sorted
// slash paths relative to its top; .git and node_modules are skipped.
func (t *tree) list(filter []string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(t.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != t.root && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if languageOf(d.Name()) != "" && selected(rel, filter) {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// listGit returns the query files of the working tree that filter
// selects: the files git tracks and the untracked ones it does not ignore,
// as sorted slash paths relative to the top.
func (t *tree) listGit(ctx context.Context, filter []string) ([]string, error) {
	out, err := git(ctx, t.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] || languageOf(p) == "" || !selected(p, filter) || hasDir(p, "node_modules") {
			continue
		}
		seen[p] = true
		if fi, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(p))); err != nil || fi.IsDir() {
			continue // deleted from the working tree, or a submodule
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// hasDir reports whether the slash path p lies below a directory named dir.
func hasDir(p, dir string) bool {
	return strings.HasPrefix(p, dir+"/") || strings.Contains(p, "/"+dir+"/")
}

// config returns the .ctxql.yaml that applies to the file at abs, or nil
// when there is none inside the tree (one above it is not part of it) or it
// is invalid.
func (t *tree) config(abs string) *config.Config {
	cfg, _, err := config.Load(filepath.Dir(abs))
	if err != nil || cfg == nil || cfg.Dir() == "" {
		return nil
	}
	if d, err := filepath.Rel(t.root, cfg.Dir()); err != nil || !filepath.IsLocal(d) && d != "." {
		return nil
	}
	return cfg
}

// evaluate reads and evaluates the file at rel; nil when it has no sample
// data.
func (t *tree) evaluate(ctx context.Context, rel string) *evaluated {
	abs := filepath.Join(t.root, filepath.FromSlash(rel))
	e := &evaluated{path: rel, lang: languageOf(rel)}
	b, err := t.files.ReadFile(abs)
	if err != nil {
		e.file = syntax.NewFile(rel, "")
		e.queries = []query{{key: "\x00file", text: rel, err: "read: " + t.clean(err)}}
		return e
	}
	src := string(b)
	e.file = syntax.NewFile(rel, src)
	// The file's dialect and sample data are resolved as every tool
	// resolves them: its pragmas, else the tree's configuration.
	settings := lang.Settings{Config: t.config(abs)}
	p, err := lang.ParseFile(abs, src, settings)
	if err != nil {
		return nil
	}
	data, ok := settings.DataPath(abs, p)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	e.queries = t.evalFile(ctx, rel, p, data)
	for i := range e.queries {
		if e.queries[i].err == "" && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.queries[i].err = fmt.Sprintf("evaluation exceeded %v", t.timeout)
		}
	}
	return e
}

// clean removes the tree's location from a message, so that the base's
// temporary directory and the working tree read alike.
func (t *tree) clean(err error) string {
	return strings.ReplaceAll(err.Error(), t.root+string(filepath.Separator), "")
}

// load returns the data of language l at path, loaded once per tree.
func (t *tree) load(l *lang.Language, path string) (lang.Data, error) {
	key := string(l.ID) + "\x00" + path
	if r, ok := t.loaded[key]; ok {
		return r.val, r.err
	}
	v, err := l.Load(context.Background(), t.files, path)
	if err != nil {
		err = fmt.Errorf("sample data %s", t.clean(err))
	}
	t.loaded[key] = loadResult{v, err}
	return v, err
}
