package play

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
)

// The exported playground is the same page as the served one, on another
// backend: where the served page asks the server (its HTTP API and a
// language server over a WebSocket), the exported page asks ctxql's
// library built for WebAssembly, the browser module of the npm package
// @ctxql/ctxql, which it loads from beside itself. The page's
// index.html names its backend (a meta element ctxql-backend); info.json
// and the examples stand in for the API's answers. Nothing is read from a
// disk or the network at run time: the module has no file access, and
// sample data is what the page pastes or an example brings.

// ModuleFiles are the files of the npm package @ctxql/ctxql the exported
// page loads: its browser entry, the code it shares with Node, Go's glue
// and the WebAssembly module.
var ModuleFiles = []string{"browser.js", "core.js", "wasm_exec.js", "ctxql.wasm"}

// Module is the module files by name (ModuleFiles).
type Module map[string][]byte

// moduleDir is where a build of ctxql that carries the module has its
// files, the .wasm gzipped (scripts/release puts them there before
// building); a checkout has only the README there.
//
//go:embed module
var moduleDir embed.FS

// EmbeddedModule returns the module files this build of ctxql carries,
// or nil when it carries none.
func EmbeddedModule() Module {
	m := Module{}
	for _, name := range ModuleFiles {
		b, err := moduleDir.ReadFile("module/" + name)
		if err != nil && strings.HasSuffix(name, ".wasm") {
			b, err = gunzip(moduleDir.ReadFile("module/" + name + ".gz"))
		}
		if err != nil {
			return nil
		}
		m[name] = b
	}
	return m
}

// gunzip decompresses the result of a read.
func gunzip(b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// ModuleDir returns the module files of an installed or unpacked npm
// package @ctxql/ctxql in dir, read through the command line's reader; it
// fails when one is missing.
func ModuleDir(dir string) (Module, error) {
	r := files.New(0, "")
	m := Module{}
	for _, name := range ModuleFiles {
		b, err := r.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("the WebAssembly module's files: %w", err)
		}
		m[name] = b
	}
	return m, nil
}

// exportPolicy is the exported page's Content-Security-Policy, in its
// HTML: scripts, the module and every request only from beside the page
// (no CDN, no other site); WebAssembly may compile. CodeMirror adds its
// styles in <style> elements, which a static page cannot give a nonce.
const exportPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"

// exportProject names the exported page's virtual project: the editor's
// document is .ctxql-play/query.pact (or .jql, .dl) in it, as in the
// served page, and a Datalog proof names the program by that path.
const exportProject = "playground"

// ExportOptions configure an exported playground.
type ExportOptions struct {
	// Version is written to info.json; the page shows the module's.
	Version string
	// Timeout bounds one request of the page to the module (an
	// evaluation); 0 means DefaultTimeout.
	Timeout time.Duration
}

// Export writes the playground into dir as static files (creating dir):
// index.html, its assets, info.json, the examples, and in ctxql/ the
// module files (see ModuleFiles). Any static file server can serve dir,
// under any path, and a browser runs the page with no server behind it.
func Export(dir string, module Module, o ExportOptions) error {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	out := map[string][]byte{}
	for _, name := range ModuleFiles {
		b, ok := module[name]
		if !ok {
			return fmt.Errorf("the WebAssembly module's files: %s is missing", name)
		}
		out["ctxql/"+name] = b
	}
	page, err := dist.ReadFile("dist/index.html")
	if err != nil {
		return fmt.Errorf("the page is missing from this build: %w", err)
	}
	meta := `<meta name="ctxql-style-nonce" content="STYLE-NONCE">`
	if !bytes.Contains(page, []byte(meta)) {
		return errors.New("the page has no style nonce element to replace")
	}
	out["index.html"] = bytes.Replace(page, []byte(meta), []byte(`<meta name="ctxql-backend" content="module">`+"\n"+
		`<meta http-equiv="Content-Security-Policy" content="`+exportPolicy+`">`), 1)
	for _, name := range []string{"app.js", "app.css", "worker.js"} {
		b, err := dist.ReadFile("dist/" + name)
		if err != nil {
			return fmt.Errorf("the page is missing from this build: %w", err)
		}
		out["assets/"+name] = b
	}
	ents, err := examples.ReadDir("examples")
	if err != nil {
		return fmt.Errorf("examples: %w", err)
	}
	for _, e := range ents {
		b, err := examples.ReadFile("examples/" + e.Name())
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		out["examples/"+e.Name()] = b
	}
	ex, err := exampleList()
	if err != nil {
		return err
	}
	info, err := json.MarshalIndent(map[string]any{
		"version":       o.Version,
		"root":          "file:///" + exportProject,
		"project":       exportProject,
		"languages":     infoLanguages(),
		"examples":      ex,
		"files":         false,
		"maxPasteBytes": DefaultMaxPasteBytes,
		"maxQueryBytes": DefaultMaxQueryBytes,
		"timeoutMs":     o.Timeout.Milliseconds(),
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("info.json: %w", err)
	}
	out["info.json"] = append(info, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export directory: %w", err)
	}
	for name, b := range out {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if i := strings.LastIndex(name, "/"); i >= 0 {
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name[:i])), 0o755); err != nil {
				return fmt.Errorf("export directory: %w", err)
			}
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// infoLanguages describes the query languages of the table to the page.
func infoLanguages() []infoLanguage {
	var langs []infoLanguage
	for _, l := range lang.Queries() {
		il := infoLanguage{ID: string(l.ID), Name: l.Name, Extensions: l.Extensions(), Comment: l.Comment(l.Extensions()[0]).Line,
			Steps: !l.Program(), Proofs: l.Proves()}
		if l.Dialects {
			il.Dialects = lang.DialectNames()
		}
		langs = append(langs, il)
	}
	return langs
}
