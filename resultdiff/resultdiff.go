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
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
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
	// All evaluates every query file, also those whose query, data and
	// configuration are the same in both versions (which Run otherwise
	// skips: their results cannot differ).
	All bool
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
	// Unchanged counts the query files not evaluated because their query,
	// data and configuration are the same in both versions.
	Unchanged int
	// Skipped are the query files not read because they are links whose
	// target lies outside the paths compared (the work tree when none are
	// named), in path order.
	Skipped []Skip

	ignoreAdded bool
}

// Skip is a query file that is a link leading outside the paths compared.
type Skip struct {
	Path   string // slash path relative to the work tree's top
	Target string // what the link holds
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

// Run compares the base revision with the working tree. Only the files
// whose query, data or configuration differ between the two are evaluated
// (all of them with opts.All), on every core, and only what they read is
// extracted from git.
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
	root, commit, st, err := readState(ctx, dir, opts.Base)
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
	// A renamed file is selected by either of its names.
	baseFilter := append([]string(nil), filter...)
	for newPath, oldPath := range st.moved {
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
	rep := &Report{Base: opts.Base, Commit: commit, ignoreAdded: opts.IgnoreAdded}
	c := &comparison{st: st, work: work, base: base, filter: filter}
	pairs := c.pairs(baseFilter, rep)
	if !opts.All {
		pairs = c.dirty(pairs, rep)
	}
	if err := c.extract(ctx, root, commit, pairs); err != nil {
		return nil, err
	}
	// Each side of each pair is one task: even one changed file uses two
	// cores.
	results := make([][2]*evaluated, len(pairs))
	if err := parallel(ctx, 2*len(pairs), func(i int) {
		pr := pairs[i/2]
		switch {
		case i%2 == 0 && pr.base != "":
			results[i/2][0] = base.evaluate(ctx, pr.base)
		case i%2 == 1 && pr.work != "":
			results[i/2][1] = work.evaluate(ctx, pr.work)
		}
	}); err != nil {
		return nil, err
	}
	for _, r := range results {
		rep.add(r[0], r[1])
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

// parallel runs f(0), …, f(n-1) on every core and returns the context's
// error when it ended first.
func parallel(ctx context.Context, n int, f func(i int)) error {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	var err error
	for i := 0; i < n && err == nil; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// pair is one query file to compare: its path in the working tree and at
// the base ("" where it is absent), and whether the base's is a link.
type pair struct {
	work, base string
	baseLink   bool
}

// comparison holds what deciding which files to compare needs.
type comparison struct {
	st         *state
	work, base *tree
	filter     []string
	langs      languages // used by one goroutine
}

// pairs lists the query files of both versions that the filters select,
// paired across a rename, the working tree's in path order and then those
// only the base has. A link leading outside the paths compared is left out
// and recorded in rep.Skipped.
func (c *comparison) pairs(baseFilter []string, rep *Report) []pair {
	skipped := map[string]bool{}
	skip := func(p, target string) {
		if !skipped[p] {
			skipped[p] = true
			rep.Skipped = append(rep.Skipped, Skip{Path: p, Target: target})
		}
	}
	query := func(p string) bool { return c.langs.of(p) != "" && !hasDir(p, "node_modules") }
	// A file git sees unchanged is the base's file, at the same path (no
	// rename names it, and the filters select it alike at both); only the
	// others are looked at one by one. Those left out as links leading
	// outside may still be compared at the base.
	same := make([]pair, 0, len(c.st.base)+len(c.st.changed))
	var links []int    // the links in same
	var alone []string // base paths the working tree has no pair for yet
	for _, e := range c.st.base {
		p := e.path
		if !e.isFile() || c.st.changed[p] || !selected(p, c.filter) || !query(p) {
			continue
		}
		if e.isLink() {
			if target, out := c.work.linkOutside(p, c.filter); out {
				skip(p, target)
				alone = append(alone, p)
				continue
			}
			links = append(links, len(same))
		}
		same = append(same, pair{work: p, base: p, baseLink: e.isLink()})
	}
	changed := make([]string, 0, len(c.st.changed))
	for p := range c.st.changed {
		changed = append(changed, p)
	}
	sort.Strings(changed)
	var others []pair
	for _, p := range changed {
		alone = append(alone, p)
		if !query(p) || !selected(p, c.filter) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(c.work.root, filepath.FromSlash(p)))
		if err != nil || fi.IsDir() {
			continue // gone, or a submodule
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if target, out := c.work.linkOutside(p, c.filter); out {
				skip(p, target)
				continue
			}
		}
		pr := pair{work: p, base: p}
		if old, ok := c.st.moved[p]; ok {
			pr.base = old
		}
		others = append(others, pr)
	}
	// A base link whose target lies outside the paths compared is not
	// read at the base.
	baseSkipped := map[string]bool{}
	for _, e := range c.st.base {
		if e.isLink() && selected(e.path, baseFilter) && query(e.path) {
			if target, out := c.baseLinkOutside(e.path, e, baseFilter); out {
				skip(e.path, target)
				baseSkipped[e.path] = true
			}
		}
	}
	for _, i := range links {
		if baseSkipped[same[i].base] {
			same[i].base, same[i].baseLink = "", false
		}
	}
	inBase := func(p string) (entry, bool) {
		e, ok := c.st.lookup(p)
		return e, ok && e.isFile() && selected(p, baseFilter) && query(p) && !baseSkipped[p]
	}
	paired := map[string]bool{}
	for i, pr := range others {
		if e, ok := inBase(pr.base); ok {
			paired[pr.base] = true
			others[i].baseLink = e.isLink()
		} else {
			others[i].base = ""
		}
	}
	// Both lists are in path order: merge them, from the end, into the
	// room left after the first.
	out := same[:len(same)+len(others)]
	for i, j, k := len(same)-1, len(others)-1, len(out)-1; j >= 0; k-- {
		if i >= 0 && same[i].work > others[j].work {
			out[k] = same[i]
			i--
		} else {
			out[k] = others[j]
			j--
		}
	}
	sort.Strings(alone)
	for i, p := range alone {
		if i > 0 && p == alone[i-1] || paired[p] {
			continue
		}
		if e, ok := inBase(p); ok {
			out = append(out, pair{base: p, baseLink: e.isLink()})
		}
	}
	sort.Slice(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Path < rep.Skipped[j].Path })
	return out
}

// languages remembers the language of file names (languageOf) by what
// follows the first dot of the name: the language table chooses a
// language by a suffix that starts with a dot.
type languages struct {
	seen      map[string]string
	last, lng string // the last suffix asked about and its language
}

// of returns the query language of the slash path p, or "".
func (m *languages) of(p string) string {
	name := p[strings.LastIndexByte(p, '/')+1:]
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return languageOf(p)
	}
	k := name[i:]
	if k == m.last {
		return m.lng
	}
	l, ok := m.seen[k]
	if !ok {
		if m.seen == nil {
			m.seen = map[string]string{}
		}
		l = languageOf(p)
		m.seen[k] = l
	}
	m.last, m.lng = k, l
	return l
}

// linkOutside reports whether the link at rel resolves outside the paths
// compared (filter, or the whole tree when it is empty), and what it holds.
func (t *tree) linkOutside(rel string, filter []string) (string, bool) {
	abs := filepath.Join(t.root, filepath.FromSlash(rel))
	target, _ := os.Readlink(abs)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return target, false // dangling: reading it reports why
	}
	r, err := filepath.Rel(t.root, real)
	if err != nil || !filepath.IsLocal(r) {
		return target, true
	}
	return target, !selected(filepath.ToSlash(r), filter)
}

// baseLinkOutside is linkOutside for the base revision's link at p, read
// from git: its target, taken relative to the link's directory, must lie
// inside the tree and the paths compared.
func (c *comparison) baseLinkOutside(p string, e entry, filter []string) (string, bool) {
	out, err := exec.Command("git", "-C", c.work.root, "cat-file", "blob", hex.EncodeToString([]byte(e.oid))).Output()
	if err != nil {
		return "", false
	}
	target := string(out)
	if filepath.IsAbs(target) || path.IsAbs(target) {
		return target, true
	}
	r := path.Join(path.Dir(p), target)
	if !filepath.IsLocal(filepath.FromSlash(r)) {
		return target, true
	}
	return target, !selected(r, filter)
}

// dirty keeps the pairs whose results can differ — the file, its data or
// a configuration that applies to it changed, or a link is involved — and
// counts the others in rep.Unchanged.
func (c *comparison) dirty(pairs []pair, rep *Report) []pair {
	var configDirs []string // directories whose .ctxql.yaml changed
	var data []string       // changed paths that may be sample data
	for p := range c.st.changed {
		switch {
		case path.Base(p) == config.FileName:
			configDirs = append(configDirs, path.Dir(p))
		case c.langs.of(p) == "" || !c.work.hasData(p):
			data = append(data, p) // a query file without data of its own may be a Datalog declaration
		}
	}
	sort.Strings(data)
	under := func(p, dir string) bool { return dir == "." || p == dir || strings.HasPrefix(p, dir+"/") }
	var out []pair
	for _, pr := range pairs {
		keep := pr.work == "" || pr.base == "" || pr.work != pr.base || c.st.changed[pr.work] || pr.baseLink
		for _, d := range configDirs {
			keep = keep || under(pr.work, d)
		}
		if !keep && len(data) > 0 {
			keep = c.work.dataChanged(pr.work, data)
		}
		if keep {
			out = append(out, pr)
		} else {
			rep.Unchanged++
		}
	}
	return out
}

// hasData reports whether the working tree's file at rel names sample data
// (an unreadable file counts as none).
func (t *tree) hasData(rel string) bool {
	b, err := t.files.ReadFile(filepath.Join(t.root, filepath.FromSlash(rel)))
	return err == nil && t.dataPath(rel, string(b)) != ""
}

// dataChanged reports whether the sample data of the working tree's file
// at rel may have changed: it is, lies below or contains one of the changed
// paths (sorted), it is reached through a link, or it cannot be told.
func (t *tree) dataChanged(rel string, changed []string) bool {
	b, err := t.files.ReadFile(filepath.Join(t.root, filepath.FromSlash(rel)))
	if err != nil {
		return true
	}
	abs := t.dataPath(rel, string(b))
	if abs == "" {
		return false // no data: no query to compare
	}
	r, err := filepath.Rel(t.root, abs)
	if err != nil || !filepath.IsLocal(r) {
		return true
	}
	if real, err := filepath.EvalSymlinks(abs); err != nil || real != filepath.Clean(abs) {
		return true
	}
	d := filepath.ToSlash(r)
	for a := d; a != "."; a = path.Dir(a) {
		if _, ok := slices.BinarySearch(changed, a); ok {
			return true
		}
	}
	i := sort.SearchStrings(changed, d+"/")
	return i < len(changed) && strings.HasPrefix(changed[i], d+"/")
}

// extract writes into the base tree what evaluating the base side of the
// pairs reads: the query files, every .ctxql.yaml, and their sample data.
// When one of them is reached through a link, the whole revision is
// extracted instead.
func (c *comparison) extract(ctx context.Context, root, commit string, pairs []pair) error {
	var need []string
	for _, e := range c.st.base {
		if strings.HasSuffix(e.path, config.FileName) && path.Base(e.path) == config.FileName {
			need = append(need, e.path)
		}
	}
	var files []string
	for _, pr := range pairs {
		if pr.base != "" {
			need = append(need, pr.base)
			files = append(files, pr.base)
		}
	}
	if len(files) == 0 {
		return nil
	}
	blobs := &catFile{ctx: ctx, root: root}
	err := c.fetch(blobs, need)
	if err == nil {
		need = need[:0]
		for _, p := range files {
			b, rerr := c.base.files.ReadFile(filepath.Join(c.base.root, filepath.FromSlash(p)))
			if rerr != nil {
				continue
			}
			d := c.base.dataPath(p, string(b))
			if r, rerr := filepath.Rel(c.base.root, d); d != "" && rerr == nil && filepath.IsLocal(r) {
				need = append(need, filepath.ToSlash(r))
			}
		}
		err = c.fetch(blobs, need)
	}
	if cerr := blobs.close(); err == nil {
		err = cerr
	}
	if !errors.Is(err, errLinks) {
		return err
	}
	// Start over with the whole revision.
	ents, rerr := c.base.files.ReadDir(c.base.root)
	if rerr != nil {
		return rerr
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(c.base.root, e.Name())); err != nil {
			return err
		}
	}
	c.base.reset()
	return extract(ctx, root, commit, c.base.root)
}

// fetch writes the base files that reading the paths needs.
func (c *comparison) fetch(blobs *catFile, paths []string) error {
	var all []string
	for _, p := range paths {
		fs, err := c.st.files(p)
		if err != nil {
			return err
		}
		all = append(all, fs...)
	}
	return c.st.fetch(blobs, c.base.root, all)
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
// Its methods may be called from several goroutines at once.
type tree struct {
	root    string
	files   *files.Reader // confined to root
	timeout time.Duration

	mu      sync.Mutex
	loaded  map[string]*loadResult    // data by kind and path
	configs map[string]*config.Config // the configuration that applies, by directory
}

// loadResult is data loaded once, however many files ask for it at once.
type loadResult struct {
	once sync.Once
	val  lang.Data
	err  error
}

func newTree(root string, opts Options) (*tree, error) {
	r, err := files.Confined(root, opts.MaxDataBytes, opts.Raise)
	if err != nil {
		return nil, err
	}
	t := &tree{root: r.Dir(), files: r, timeout: opts.Timeout}
	t.reset()
	return t, nil
}

// reset forgets the data and configurations read (the tree's files were
// replaced).
func (t *tree) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.loaded, t.configs = map[string]*loadResult{}, map[string]*config.Config{}
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

// hasDir reports whether the slash path p lies below a directory named dir.
func hasDir(p, dir string) bool {
	for i := 0; ; {
		j := strings.Index(p[i:], dir)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || p[j-1] == '/') && j+len(dir) < len(p) && p[j+len(dir)] == '/' {
			return true
		}
		i = j + 1
	}
}

// dataPath returns the sample data the file at rel (holding src) names,
// resolved as every tool resolves it (lang.Settings.DataPath): its "data:"
// pragma, else the tree's configuration; "" when it names none.
func (t *tree) dataPath(rel, src string) string {
	abs := filepath.Join(t.root, filepath.FromSlash(rel))
	p, ok := lang.Settings{Config: t.config(abs)}.DataPathText(abs, src)
	if !ok {
		return ""
	}
	return p
}

// config returns the .ctxql.yaml that applies to the file at abs, or nil
// when there is none inside the tree (one above it is not part of it) or it
// is invalid.
func (t *tree) config(abs string) *config.Config {
	dir := filepath.Dir(abs)
	t.mu.Lock()
	cfg, ok := t.configs[dir]
	t.mu.Unlock()
	if ok {
		return cfg
	}
	cfg, _, err := config.Load(dir)
	if err != nil || cfg == nil || cfg.Dir() == "" {
		cfg = nil
	} else if d, err := filepath.Rel(t.root, cfg.Dir()); err != nil || !filepath.IsLocal(d) && d != "." {
		cfg = nil
	}
	t.mu.Lock()
	t.configs[dir] = cfg
	t.mu.Unlock()
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

// load returns the data of language l at path, loaded once per tree
// however many files ask for it at once.
func (t *tree) load(l *lang.Language, path string) (lang.Data, error) {
	key := string(l.ID) + "\x00" + path
	t.mu.Lock()
	r, ok := t.loaded[key]
	if !ok {
		r = &loadResult{}
		t.loaded[key] = r
	}
	t.mu.Unlock()
	r.once.Do(func() {
		r.val, r.err = l.Load(context.Background(), t.files, path)
		if r.err != nil {
			r.err = fmt.Errorf("sample data %s", t.clean(r.err))
		}
	})
	return r.val, r.err
}
