package resultdiff

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ErrNotRepo reports a directory outside any git work tree.
var ErrNotRepo = errors.New("not inside a git work tree")

// ErrBadRevision reports a base revision git does not know.
var ErrBadRevision = errors.New("unknown revision")

// git runs git in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// extract writes the tree of commit into dir (git archive): regular files
// and symbolic links, nothing outside dir.
func extract(ctx context.Context, root, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = root
	var errb bytes.Buffer
	cmd.Stderr = &errb
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive: %w", err)
	}
	terr := untar(ctx, pipe, dir)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive: %s", strings.TrimSpace(errb.String()))
	}
	return terr
}

func untar(ctx context.Context, r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if name == "" || !filepath.IsLocal(name) {
			continue
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			// Kept as a link: reads go through a reader confined to dir,
			// which refuses a link that leads out of it.
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		}
	}
}

// entry is one file of the base revision's tree.
type entry struct {
	path string // slash path relative to the top
	oid  string // the object name, binary
	mode uint32 // 0o100644, 0o100755, 0o120000 (a link), 0o160000 (a submodule)
	// intent marks an index entry added with "git add -N": a path the
	// index names without content, which no commit has.
	intent bool
}

// isLink reports whether the entry is a symbolic link.
func (e entry) isLink() bool { return e.mode == 0o120000 }

// isFile reports whether the entry is a file or a link (not a submodule).
func (e entry) isFile() bool { return e.mode != 0o160000 }

// state is what git says about the base revision and the working tree,
// read without extracting anything: every file of the base, the paths that
// differ between the base and the working tree, renames, and the untracked
// files git does not ignore.
type state struct {
	base []entry // every file of the base, sorted by path
	// changed holds every path that differs: modified, added, deleted,
	// renamed (both names), changed type, and untracked.
	changed   map[string]bool
	moved     map[string]string // working-tree path of a renamed file → its base path
	untracked []string
}

// lookup returns the base entry at the slash path p.
func (s *state) lookup(p string) (entry, bool) {
	i, ok := slices.BinarySearchFunc(s.base, p, func(e entry, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return entry{}, false
	}
	return s.base[i], true
}

// location is where locate found the work tree and the base commit.
type location struct {
	root   string // the work tree's top directory
	index  string // the index file
	commit string // the commit the base revision names, in hex
}

// locate returns the top directory of the work tree holding dir, its index
// file and the commit rev names, with one git process.
func locate(ctx context.Context, dir, rev string) (location, error) {
	if strings.HasPrefix(rev, "-") {
		return location{}, fmt.Errorf("%q: %w", rev, ErrBadRevision)
	}
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel", "--git-path", "index", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	out, _ := cmd.Output() // the exit status says less than what was printed
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] == "" {
		if err := ctx.Err(); err != nil {
			return location{}, err
		}
		return location{}, fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	loc := location{root: lines[0]}
	if real, err := filepath.EvalSymlinks(loc.root); err == nil {
		loc.root = real
	}
	if len(lines) < 3 {
		return location{}, fmt.Errorf("%q: %w", rev, ErrBadRevision)
	}
	loc.index, loc.commit = lines[1], lines[2]
	if !filepath.IsAbs(loc.index) {
		loc.index = filepath.Join(dir, loc.index)
	}
	return loc, nil
}

// readState finds the work tree holding dir and the commit rev names, and
// asks git for the state of the work tree against it, running its
// processes at once. When rev is HEAD, one "git status" (started at once,
// it needs neither) tells the changes and the untracked files, and the
// index, with what status says differs between it and HEAD, lists HEAD's
// files; otherwise "git diff" and "git ls-files" tell the changes and
// "git ls-tree" lists the base.
func readState(ctx context.Context, dir, rev string) (root, commit string, st *state, err error) {
	head := rev == "HEAD"
	var wg sync.WaitGroup
	var status []byte
	var statusErr error
	if head {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, statusErr = git(ctx, dir, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--renames", "--ignore-submodules=none")
		}()
	}
	defer wg.Wait()
	loc, err := locate(ctx, dir, rev)
	if err != nil {
		return "", "", nil, err
	}
	root, commit = loc.root, loc.commit
	st = &state{changed: map[string]bool{}, moved: map[string]string{}}
	if head {
		var index []entry
		var indexErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			index, indexErr = readIndex(loc.index, len(commit)/2)
		}()
		wg.Wait()
		if statusErr != nil {
			return "", "", nil, statusErr
		}
		headOf, ok := st.status(status)
		if ok && indexErr == nil {
			st.base = overlay(index, headOf)
			return root, commit, st, nil
		}
		// An index read otherwise, or changes status does not pin to HEAD:
		// git lists HEAD.
		tree, err := git(ctx, root, "ls-tree", "-r", "-z", "--full-tree", commit)
		if err != nil {
			return "", "", nil, err
		}
		st.base = parseTree(tree)
		return root, commit, st, nil
	}
	cmds := [][]string{{"ls-tree", "-r", "-z", "--full-tree", commit},
		{"diff", "--no-ext-diff", "-M", "--name-status", "-z", commit, "--"},
		{"ls-files", "-z", "--others", "--exclude-standard"}}
	outs := make([][]byte, len(cmds))
	errs := make([]error, len(cmds))
	for i, args := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = git(ctx, root, args...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", "", nil, err
	}
	st.base = parseTree(outs[0])
	f := strings.Split(string(outs[1]), "\x00")
	for i := 0; i < len(f); {
		code := f[i]
		switch {
		case code == "":
			i++
		case strings.HasPrefix(code, "R") || strings.HasPrefix(code, "C"):
			if i+2 < len(f) {
				if code[0] == 'R' {
					st.moved[f[i+2]] = f[i+1]
					st.changed[f[i+1]] = true
				}
				st.changed[f[i+2]] = true
			}
			i += 3
		default:
			if i+1 < len(f) {
				st.changed[f[i+1]] = true
			}
			i += 2
		}
	}
	for _, p := range strings.Split(string(outs[2]), "\x00") {
		if p != "" {
			st.untracked = append(st.untracked, p)
			st.changed[p] = true
		}
	}
	return root, commit, st, nil
}

// parseTree reads "git ls-tree -r -z" output into entries sorted by path.
func parseTree(tree []byte) []entry {
	out := make([]entry, 0, bytes.Count(tree, []byte{0}))
	for rest := string(tree); rest != ""; {
		// "<mode> <type> <oid>\t<path>\x00"
		var rec string
		rec, rest, _ = strings.Cut(rest, "\x00")
		meta, p, ok := strings.Cut(rec, "\t")
		mode, meta, ok1 := strings.Cut(meta, " ")
		_, oid, ok2 := strings.Cut(meta, " ")
		e, ok3 := newEntry(p, mode, oid)
		if ok && ok1 && ok2 && ok3 {
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out
}

// newEntry makes an entry of an octal mode and a hex object name as git
// prints them.
func newEntry(p, mode, oid string) (entry, bool) {
	m, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		return entry{}, false
	}
	o, err := hex.DecodeString(oid)
	if err != nil {
		return entry{}, false
	}
	return entry{path: p, mode: uint32(m), oid: string(o)}, true
}

// sortEntries sorts entries by path (git lists them so already).
func sortEntries(es []entry) {
	cmp := func(a, b entry) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(es, cmp) {
		slices.SortFunc(es, cmp)
	}
}

// overlay returns HEAD's files from the index's entries (sorted) and, for
// the paths where the two differ, HEAD's entry (nil: none at HEAD). An
// entry added with "git add -N" is not HEAD's.
func overlay(index []entry, headOf map[string]*entry) []entry {
	if len(headOf) == 0 && !slices.ContainsFunc(index, func(e entry) bool { return e.intent }) {
		return index
	}
	out := make([]entry, 0, len(index)+len(headOf))
	for _, e := range index {
		if _, ok := headOf[e.path]; !ok && !e.intent {
			out = append(out, e)
		}
	}
	for _, e := range headOf {
		if e != nil {
			out = append(out, *e)
		}
	}
	sortEntries(out)
	return out
}

// status reads "git status --porcelain=v2 -z" into the changed paths,
// renames and untracked files, and returns HEAD's entry (nil: none) of
// every path whose index entry differs from HEAD's (X is not "."). ok is
// false when a record names no HEAD entry for its paths (an unmerged
// path, a rename in the working tree alone): only the whole HEAD tree
// tells then.
func (s *state) status(out []byte) (headOf map[string]*entry, ok bool) {
	headOf = map[string]*entry{}
	ok = true
	// at records HEAD's entry of p from a record's XY, mH and hH fields.
	// Where X is ".", the index entry is HEAD's (but for an entry added
	// with "git add -N", for which status prints the index's fields).
	at := func(p, xy, mH, hH string) {
		if len(xy) != 2 {
			ok = false
			return
		}
		if xy[0] == '.' {
			return
		}
		if mH == "000000" {
			headOf[p] = nil
			return
		}
		e, good := newEntry(p, mH, hH)
		if !good {
			ok = false
		}
		headOf[p] = &e
	}
	f := strings.Split(string(out), "\x00")
	for i := 0; i < len(f); i++ {
		rec := f[i]
		if rec == "" {
			continue
		}
		switch rec[0] {
		case '1': // 1 XY sub mH mI mW hH hI path
			if x := strings.SplitN(rec, " ", 9); len(x) == 9 {
				s.changed[x[8]] = true
				at(x[8], x[1], x[3], x[6])
			} else {
				ok = false
			}
		case '2': // 2 XY sub mH mI mW hH hI Xscore path, then the original path
			x := strings.SplitN(rec, " ", 10)
			if len(x) != 10 || i+1 >= len(f) {
				ok = false
				continue
			}
			i++
			s.changed[x[9]] = true
			if strings.HasPrefix(x[8], "R") {
				s.moved[x[9]] = f[i]
				s.changed[f[i]] = true
			}
			// Renamed in the index: mH and hH are the original path's
			// at HEAD, where the new path is not.
			if strings.HasPrefix(x[1], "R") {
				at(f[i], x[1], x[3], x[6])
				headOf[x[9]] = nil
			} else {
				ok = false
			}
		case 'u': // u XY sub m1 m2 m3 mW h1 h2 h3 path
			if x := strings.SplitN(rec, " ", 11); len(x) == 11 {
				s.changed[x[10]] = true
			}
			ok = false
		case '?':
			p := strings.TrimPrefix(rec, "? ")
			s.untracked = append(s.untracked, p)
			s.changed[p] = true
		}
	}
	return headOf, ok
}

// below returns the base paths below the directory dir (a slash path).
func (s *state) below(dir string) []string {
	i, _ := slices.BinarySearchFunc(s.base, dir+"/", func(e entry, p string) int { return strings.Compare(e.path, p) })
	var out []string
	for ; i < len(s.base) && strings.HasPrefix(s.base[i].path, dir+"/"); i++ {
		out = append(out, s.base[i].path)
	}
	return out
}

// errLinks reports that a file the comparison needs from the base revision
// is, or lies below, a symbolic link: only the whole tree extracted
// resolves links as the working tree would.
var errLinks = errors.New("the base revision's file is reached through a link")

// files returns the base files that reading the path p (a file or a
// directory, a slash path relative to the top) needs, or errLinks.
func (s *state) files(p string) ([]string, error) {
	for a := path.Dir(p); a != "."; a = path.Dir(a) {
		if e, ok := s.lookup(a); ok && e.isLink() {
			return nil, errLinks
		}
	}
	if e, ok := s.lookup(p); ok {
		if e.isLink() {
			return nil, errLinks
		}
		if !e.isFile() {
			return nil, nil
		}
		return []string{p}, nil
	}
	out := s.below(p)
	for _, q := range out {
		if e, _ := s.lookup(q); e.isLink() {
			return nil, errLinks
		}
	}
	return out, nil
}

// catFile is one "git cat-file --batch" process, started on the first
// request and answering every fetch of a run.
type catFile struct {
	ctx  context.Context
	root string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errb bytes.Buffer
}

// start starts the process unless it runs.
func (c *catFile) start() error {
	if c.cmd != nil {
		return nil
	}
	cmd := exec.CommandContext(c.ctx, "git", "cat-file", "--batch")
	cmd.Dir = c.root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	cmd.Stderr = &c.errb
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReaderSize(out, 1<<16)
	return nil
}

// close ends the process.
func (c *catFile) close() error {
	if c.cmd == nil {
		return nil
	}
	c.in.Close()
	io.Copy(io.Discard, c.out)
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("git cat-file: %s", strings.TrimSpace(c.errb.String()))
	}
	return nil
}

// fetch writes the base files at paths (slash paths relative to the top,
// regular files only) into dir, those not written yet.
func (s *state) fetch(c *catFile, dir string, paths []string) error {
	var todo []entry
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil || !filepath.IsLocal(filepath.FromSlash(p)) {
			continue // already written, or no place inside dir
		}
		if e, ok := s.lookup(p); ok && e.isFile() && !e.isLink() {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if err := c.start(); err != nil {
		return err
	}
	// Requests go in while answers come out: neither pipe fills up.
	go func() {
		w := bufio.NewWriter(c.in)
		for _, e := range todo {
			w.WriteString(hex.EncodeToString([]byte(e.oid)))
			w.WriteByte('\n')
		}
		w.Flush()
	}()
	return writeBlobs(c.ctx, c.out, dir, todo)
}

// writeBlobs reads git cat-file --batch answers, one per entry, and writes
// each blob to its entry's path below dir.
func writeBlobs(ctx context.Context, r *bufio.Reader, dir string, entries []entry) error {
	for _, e := range entries {
		p := e.path
		if err := ctx.Err(); err != nil {
			return err
		}
		head, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(head) // "<oid> <type> <size>"
		if len(f) != 3 {
			return fmt.Errorf("git cat-file: %s", strings.TrimSpace(head))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("git cat-file: %s", strings.TrimSpace(head))
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.CopyN(out, r, size)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if _, err := r.Discard(1); err != nil { // the newline after the blob
			return fmt.Errorf("git cat-file: %w", err)
		}
	}
	return nil
}
