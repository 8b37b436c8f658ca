package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/golden"
	mcpserver "github.com/ctxql/ctxql/mcp"
)

const fixture = "../testdata/acp/project/.acp.cache.json"

var fixedNow = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// connect starts the server on ix over in-memory transports and returns a
// client session.
func connect(t *testing.T, ix *acp.Index, statePath string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv := mcpserver.New(ix, mcpserver.Options{Now: func() time.Time { return fixedNow }, StatePath: statePath})
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// request is one line of an archive's requests section.
type request struct {
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Read      string         `json:"read,omitempty"`
}

// do performs each request and renders the responses as text: a header
// naming the request, then the indented JSON or the error.
func do(t *testing.T, cs *mcp.ClientSession, reqs string) string {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(reqs), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r request
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad request line %q: %v", line, err)
		}
		fmt.Fprintf(&out, "## %s\n", line)
		if r.Read != "" {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.Read})
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
				continue
			}
			for _, c := range res.Contents {
				fmt.Fprintf(&out, "%s %s\n%s\n", c.URI, c.MIMEType, indent(c.Text))
			}
			continue
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: r.Tool, Arguments: r.Arguments})
		if err != nil {
			fmt.Fprintf(&out, "error: %v\n", err)
			continue
		}
		if res.IsError {
			out.WriteString("tool error: ")
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintf(&out, "%s\n", indent(tc.Text))
			}
		}
	}
	return out.String()
}

func indent(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

// TestMCPGolden replays each archive's requests against the fixture cache
// over the SDK's in-memory transport and compares the responses.
func TestMCPGolden(t *testing.T) {
	ix, err := acp.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	golden.Run(t, "../testdata/acp/mcp/*.txtar", func(t *testing.T, c *golden.Case) {
		cs := connect(t, ix, filepath.Join(t.TempDir(), "state.json"))
		c.Want("responses", do(t, cs, c.Input("requests")))
	})
}

// TestMCPListsEverything checks the advertised tools, resources and
// templates.
func TestMCPListsEverything(t *testing.T) {
	ix, err := acp.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ix, filepath.Join(t.TempDir(), "state.json"))
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"acp_query", "acp_constraints", "acp_expand", "acp_debug", "acp_hack", "pact_select", "jql_query", "jql_schema", "datalog_query"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	if got, want := strings.Join(uris, " "), "acp://cache acp://constraints acp://vars"; got != want {
		t.Errorf("resources = %q, want %q", got, want)
	}
	ts, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tpls []string
	for _, r := range ts.ResourceTemplates {
		tpls = append(tpls, r.URITemplate)
	}
	if got, want := strings.Join(tpls, " "), "acp://cache/page/{n} acp://constraints/page/{n} acp://domain/{name} acp://file/{+path} acp://symbol/{+qualified_name} acp://vars/page/{n}"; got != want {
		t.Errorf("templates = %q, want %q", got, want)
	}
}

// TestMCPStateFile checks that debug sessions and hack markers persist in
// the state file across server instances and that no temporary file is
// left behind: the directory holds the state file and its lock file.
func TestMCPStateFile(t *testing.T) {
	ix, err := acp.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	cs := connect(t, ix, state)
	do(t, cs, `{"tool":"acp_debug","arguments":{"action":"start","data":{"problem":"p"}}}
{"tool":"acp_hack","arguments":{"action":"mark","data":{"file":"src/a.ts","reason":"r"}}}`)
	cs2 := connect(t, ix, state)
	got := do(t, cs2, `{"tool":"acp_debug","arguments":{"action":"status","data":{"session_id":"debug-001"}}}
{"tool":"acp_hack","arguments":{"action":"list"}}`)
	if !strings.Contains(got, `"problem": "p"`) || !strings.Contains(got, `"hack-001"`) {
		t.Errorf("state not persisted:\n%s", got)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "state.json state.json"+acp.LockSuffix; got != want {
		t.Errorf("state dir holds %q, want %q", got, want)
	}
}

// TestMCPStdio builds the ctxql binary and talks to `ctxql mcp` over a
// real subprocess's stdin and stdout.
func TestMCPStdio(t *testing.T) {
	bin := needBinary(t)
	proj := t.TempDir()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, acp.DefaultCacheName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"activities.json", "relations.json", "context.json"} {
		b, err := os.ReadFile(filepath.Join("../testdata/acp/project/data", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, "data", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--dir", proj)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := do(t, cs, `{"tool":"acp_query","arguments":{"type":"callers","name":"src/auth/jwt.ts:verifyToken"}}
{"tool":"acp_constraints","arguments":{"file":"../etc/passwd"}}
{"read":"acp://domain/authentication"}
{"tool":"acp_hack","arguments":{"action":"mark","data":{"file":"src/auth/jwt.ts","line":3,"reason":"r"}}}
{"tool":"pact_select","arguments":{"query":"@t0 ^sys .block","data":"data/context.json"}}
{"tool":"jql_schema","arguments":{"query":"{\"from\": \"nowhere\"}"}}
{"tool":"jql_query","arguments":{"query":"{\"from\": \"activities\", \"limit\": 1}","data":"data/activities.json"}}
{"tool":"datalog_query","arguments":{"query":"q(x, y) <-- edge(x, y)","data":"data/relations.json"}}`)
	for _, want := range []string{
		`"src/api/middleware.ts:authMiddleware"`,
		"tool error: ",
		`"description": "User authentication and session management"`,
		`"id": "hack-001"`,
		`"block:sysA"`,
		`"valid": false`,
		`"planGenerated"`,
		`"b"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stdio responses lack %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, acp.StateFileName)); err != nil {
		t.Errorf("state file not written beside the cache: %v", err)
	}
}

// TestMCPRefusesEscapes serves a project whose directory holds a symbolic
// link to a directory outside it: every tool and resource taking a path
// refuses the link and "..", and still answers for paths inside.
func TestMCPRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(proj, "data"), 0o755)
	os.MkdirAll(outside, 0o755)
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, acp.DefaultCacheName), b, 0o644)
	rel := `{"relations": {"edge": {"param_types": ["N", "N"], "tuples": [["a","b"]]}}}`
	os.WriteFile(filepath.Join(outside, "rel.json"), []byte(rel), 0o644)
	os.WriteFile(filepath.Join(proj, "data", "rel.json"), []byte(rel), 0o644)
	if err := os.Symlink(outside, filepath.Join(proj, "out")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "rel.json"), filepath.Join(proj, "data", "link.json")); err != nil {
		t.Fatal(err)
	}
	ix, err := acp.Load(filepath.Join(proj, acp.DefaultCacheName))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ix, filepath.Join(t.TempDir(), "state.json"))
	for _, req := range []string{
		`{"tool":"acp_constraints","arguments":{"file":"out/rel.json"}}`,
		`{"tool":"datalog_query","arguments":{"query":"q(x) <-- edge(x, _)","data":"out/rel.json"}}`,
		`{"tool":"datalog_query","arguments":{"query":"q(x) <-- edge(x, _)","data":"data/link.json"}}`,
		`{"tool":"datalog_query","arguments":{"query":"q(x) <-- edge(x, _)","data":"data/../../outside/rel.json"}}`,
		`{"tool":"jql_query","arguments":{"query":"{from: 'activities'}","data":"out/rel.json"}}`,
		`{"tool":"acp_hack","arguments":{"action":"mark","data":{"file":"out/x.ts","reason":"r"}}}`,
		`{"tool":"acp_query","arguments":{"type":"file","name":"out/x.ts"}}`,
		`{"read":"acp://file/out/rel.json"}`,
		`{"read":"acp://file/data/link.json"}`,
	} {
		got := do(t, cs, req)
		if !strings.Contains(got, "outside the project directory") {
			t.Errorf("%s: not refused:\n%s", req, got)
		}
	}
	got := do(t, cs, `{"tool":"datalog_query","arguments":{"query":"q(x) <-- edge(x, _)","data":"data/rel.json"}}`)
	if !strings.Contains(got, `"a"`) {
		t.Errorf("inside path refused:\n%s", got)
	}
}

// TestMCPStdioGolden replays every golden archive against a `ctxql mcp`
// subprocess over stdio, serving a fresh copy of the fixture project, and
// expects exactly the responses of the in-memory transport, its clock fixed
// by SOURCE_DATE_EPOCH: every resource and tool works through the SDK client
// over stdio.
func TestMCPStdioGolden(t *testing.T) {
	bin := needBinary(t)
	golden.Run(t, "../testdata/acp/mcp/*.txtar", func(t *testing.T, c *golden.Case) {
		proj := t.TempDir()
		if err := os.CopyFS(proj, os.DirFS("../testdata/acp/project")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.Command(bin, "mcp", "--dir", proj)
		cmd.Env = append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", fixedNow.Unix()))
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var want string
		for _, f := range c.Archive.Files {
			if f.Name == "responses" {
				want = string(f.Data)
			}
		}
		got := do(t, cs, c.Input("requests"))
		if diff := cmp.Diff(strings.TrimSpace(want), strings.TrimSpace(got)); diff != "" {
			t.Errorf("stdio responses differ from the golden (-want +got):\n%s", diff)
		}
	})
}
