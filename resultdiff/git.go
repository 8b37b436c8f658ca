package resultdiff

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// repoRoot returns the top directory of the work tree holding dir.
func repoRoot(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	root := strings.TrimSpace(string(out))
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root, nil
}

// resolve returns the commit a revision names.
func resolve(ctx context.Context, root, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q: %w", rev, ErrBadRevision)
	}
	out, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q: %w", rev, ErrBadRevision)
	}
	return strings.TrimSpace(string(out)), nil
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

// renames maps the working-tree path of each file git sees as renamed
// since commit to its path at commit (slash paths relative to root).
func renames(ctx context.Context, root, commit string) (map[string]string, error) {
	out, err := git(ctx, root, "diff", "--no-ext-diff", "-M", "--name-status", "-z", commit, "--")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	f := strings.Split(string(out), "\x00")
	for i := 0; i < len(f); {
		st := f[i]
		switch {
		case st == "":
			i++
		case strings.HasPrefix(st, "R") || strings.HasPrefix(st, "C"):
			if i+2 < len(f) && st[0] == 'R' {
				m[f[i+2]] = f[i+1]
			}
			i += 3
		default:
			i += 2
		}
	}
	return m, nil
}
