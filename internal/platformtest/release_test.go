package platformtest

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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
// versioned directory, the Python wheel of each platform holds the package
// and that platform's binary with a RECORD of their digests, the npm
// tarballs are the launcher @ctxql/cli and one package per platform,
// SHA256SUMS lists them all with their digests, and the binary reports the
// version and the commit it was built with; the WebAssembly library's
// tarball @ctxql/ctxql carries the release's version. (internal/launchtest installs
// the wheel and the npm packages and runs them.)
func TestReleaseArchives(t *testing.T) {
	for _, tool := range []string{"bash", "git", "tar", "zip", "sha256sum", "python3", "node", "npm"} {
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
	hostWheel := map[string]string{
		"linux/amd64":   "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
		"linux/arm64":   "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
		"darwin/amd64":  "macosx_12_0_x86_64",
		"darwin/arm64":  "macosx_12_0_arm64",
		"windows/arm64": "win_arm64",
	}[host]
	npmHost := strings.NewReplacer("windows", "win32", "amd64", "x64").Replace(runtime.GOOS + "-" + runtime.GOARCH)
	made := []string{
		base + ".tar.gz", win + ".zip",
		"ctxql-0.0.0+test.1-py3-none-" + hostWheel + ".whl", "ctxql-0.0.0+test.1-py3-none-win_amd64.whl",
		"ctxql-cli-" + npmHost + "-0.0.0-test.1.tgz", "ctxql-cli-win32-x64-0.0.0-test.1.tgz", "ctxql-cli-0.0.0-test.1.tgz",
		"ctxql-ctxql-0.0.0-test.1.tgz", "ctxql-v0.0.0-test.1-playground.tar.gz",
	}
	if !slices.Equal(listed, made) {
		t.Errorf("SHA256SUMS lists %v, want %v", listed, made)
	}
	checkWheel(t, filepath.Join(dist, made[3]), "ctxql/bin/ctxql.exe", "py3-none-win_amd64")
	checkNPM(t, filepath.Join(dist, made[5]), "@ctxql/cli-win32-x64", "package/bin/ctxql.exe")
	checkNPM(t, filepath.Join(dist, made[6]), "@ctxql/cli", "package/bin/ctxql.js")
	checkNPM(t, filepath.Join(dist, made[7]), "@ctxql/ctxql", "package/ctxql.wasm")
	// The static playground: the page and the module it runs on.
	site := untarGz(t, filepath.Join(dist, made[8]), t.TempDir())
	for _, f := range []string{"ctxql-v0.0.0-test.1-playground/index.html", "ctxql-v0.0.0-test.1-playground/ctxql/ctxql.wasm"} {
		if !slices.Contains(site, f) {
			t.Errorf("%s holds %v, not %s", made[8], site, f)
		}
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

// checkWheel opens a wheel and checks that it holds the package, the binary
// (executable) and the metadata, that its RECORD lists every other file
// with its digest and size, and that its WHEEL has the platform's tag.
func checkWheel(t *testing.T, path, binary, tag string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = b
		if f.Name == binary && f.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: %s is not executable (%v)", filepath.Base(path), binary, f.Mode())
		}
	}
	info := "ctxql-0.0.0+test.1.dist-info/"
	for _, name := range []string{"ctxql/__init__.py", "ctxql/__main__.py", "ctxql/py.typed", binary, info + "METADATA", info + "WHEEL", info + "entry_points.txt", info + "RECORD"} {
		if _, ok := files[name]; !ok {
			t.Errorf("%s has no %s", filepath.Base(path), name)
		}
	}
	if !strings.Contains(string(files[info+"WHEEL"]), "Tag: "+tag+"\n") || !strings.Contains(string(files[info+"WHEEL"]), "Root-Is-Purelib: false") {
		t.Errorf("%s: WHEEL is\n%s", filepath.Base(path), files[info+"WHEEL"])
	}
	if !strings.Contains(string(files[info+"METADATA"]), "Version: 0.0.0+test.1\n") {
		t.Errorf("%s: METADATA has not the version", filepath.Base(path))
	}
	if !strings.Contains(string(files[info+"entry_points.txt"]), "ctxql = ctxql._cli:main") {
		t.Errorf("%s: no ctxql console script", filepath.Base(path))
	}
	recorded := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(files[info+"RECORD"])), "\n") {
		parts := strings.Split(line, ",")
		if len(parts) != 3 {
			t.Fatalf("RECORD line %q", line)
		}
		recorded[parts[0]] = true
		if parts[0] == info+"RECORD" {
			continue
		}
		b, ok := files[parts[0]]
		h := sha256.Sum256(b)
		if want := "sha256=" + strings.TrimRight(base64.URLEncoding.EncodeToString(h[:]), "=") + "," + strconv.Itoa(len(b)); !ok || parts[1]+","+parts[2] != want {
			t.Errorf("RECORD says %s, the file is %s", line, want)
		}
	}
	for name := range files {
		if !recorded[name] {
			t.Errorf("RECORD does not list %s", name)
		}
	}
}

// checkNPM opens an npm tarball and checks its package's name, version and
// fields, and that it holds file.
func checkNPM(t *testing.T, path, name, file string) {
	t.Helper()
	dir := t.TempDir()
	files := untarGz(t, path, dir)
	if !slices.Contains(files, file) {
		t.Errorf("%s holds %v, not %s", filepath.Base(path), files, file)
	}
	b, err := os.ReadFile(filepath.Join(dir, "package", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name     string            `json:"name"`
		Version  string            `json:"version"`
		OS       []string          `json:"os"`
		CPU      []string          `json:"cpu"`
		Bin      map[string]string `json:"bin"`
		Optional map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != name || pkg.Version != "0.0.0-test.1" {
		t.Errorf("%s: package %s@%s, want %s@0.0.0-test.1", filepath.Base(path), pkg.Name, pkg.Version, name)
	}
	if name == "@ctxql/cli" {
		if pkg.Bin["ctxql"] != "bin/ctxql.js" || len(pkg.Optional) != 6 || pkg.Optional["@ctxql/cli-darwin-arm64"] != "0.0.0-test.1" {
			t.Errorf("@ctxql/cli: bin %v, optionalDependencies %v", pkg.Bin, pkg.Optional)
		}
	} else if plat, ok := strings.CutPrefix(name, "@ctxql/cli-"); ok && (len(pkg.OS) != 1 || len(pkg.CPU) != 1 || pkg.OS[0]+"-"+pkg.CPU[0] != plat) {
		t.Errorf("%s: os %v cpu %v", name, pkg.OS, pkg.CPU)
	}
}
