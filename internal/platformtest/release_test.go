package platformtest

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the module's root directory, two levels up.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needTool skips the test when a program it runs is missing, except in CI.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
}

// TestReleaseArchives runs scripts/release for this machine's platform and
// for windows/amd64: each archive holds the binary and the README under a
// versioned directory, SHA256SUMS lists both with their digests, and the
// binary reports the version and the commit it was built with.
func TestReleaseArchives(t *testing.T) {
	for _, tool := range []string{"bash", "git", "tar", "zip", "sha256sum"} {
		needTool(t, tool)
	}
	root := repoRoot(t)
	dist := t.TempDir()
	const version = "v0.0.0-test.1"
	host := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "release"), "--targets", host+" windows/amd64", version)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release: %v\n%s", err, out)
	}
	base := "ctxql-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH
	win := "ctxql-" + version + "-windows-amd64"

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s, the file hashes to %x", name, sum, h)
		}
		listed = append(listed, name)
	}
	if want := []string{base + ".tar.gz", win + ".zip"}; !slices.Equal(listed, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", listed, want)
	}

	// The Unix archive: unpack it and run the binary.
	unpacked := t.TempDir()
	files := untarGz(t, filepath.Join(dist, base+".tar.gz"), unpacked)
	slices.Sort(files)
	if want := []string{base + "/README.md", base + "/ctxql"}; !slices.Equal(files, want) {
		t.Errorf("%s.tar.gz holds %v, want %v", base, files, want)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(unpacked, base, "ctxql")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	want := "ctxql " + version + " (commit " + strings.TrimSpace(string(head))
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("ctxql version printed %q, want it to start with %q", out, want)
	}

	// The Windows archive: the .exe and the README.
	zr, err := zip.OpenReader(filepath.Join(dist, win+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	if want := []string{win + "/README.md", win + "/ctxql.exe"}; !slices.Equal(names, want) {
		t.Errorf("%s.zip holds %v, want %v", win, names, want)
	}
}

// untarGz unpacks the regular files of a .tar.gz archive into dir and
// returns their names.
func untarGz(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if !filepath.IsLocal(h.Name) {
			t.Fatalf("archive entry %q leaves the directory", h.Name)
		}
		p := filepath.Join(dir, h.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, h.FileInfo().Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
