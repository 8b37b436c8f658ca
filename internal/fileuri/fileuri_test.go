package fileuri

import (
	"net/url"
	"testing"
)

func TestToPath(t *testing.T) {
	for _, c := range []struct {
		uri           string
		unix, windows string
	}{
		{"file:///w/q.pact", "/w/q.pact", `\w\q.pact`},
		{"file:///c%3A/Users/me/q.pact", "/c:/Users/me/q.pact", `C:\Users\me\q.pact`},
		{"file:///C:/Users/me/my%20queries/q.pact", "/C:/Users/me/my queries/q.pact", `C:\Users\me\my queries\q.pact`},
		{"file://server/share/q.pact", "/share/q.pact", `\\server\share\q.pact`},
		{"file://localhost/c:/q.pact", "/c:/q.pact", `C:\q.pact`},
		{"/w/q.pact", "/w/q.pact", `\w\q.pact`},
	} {
		u, err := url.Parse(c.uri)
		if err != nil {
			t.Fatal(err)
		}
		if got := toPath(u, false); got != c.unix {
			t.Errorf("toPath(%q) = %q, want %q", c.uri, got, c.unix)
		}
		if got := toPath(u, true); got != c.windows {
			t.Errorf("windows: toPath(%q) = %q, want %q", c.uri, got, c.windows)
		}
	}
}

func TestPathOtherSchemes(t *testing.T) {
	for _, uri := range []string{"untitled:Untitled-1", "https://example.com/q.pact", "%zz"} {
		if got := Path(uri); got != "" {
			t.Errorf("Path(%q) = %q, want \"\"", uri, got)
		}
	}
}

func TestFromPath(t *testing.T) {
	for _, c := range []struct {
		path    string
		windows bool
		want    string
	}{
		{"/w/my q.pact", false, "file:///w/my%20q.pact"},
		{`C:\Users\me\q.pact`, true, "file:///C:/Users/me/q.pact"},
		{`\\server\share\q.pact`, true, "file://server/share/q.pact"},
	} {
		got := fromPath(c.path, c.windows)
		if got != c.want {
			t.Errorf("fromPath(%q, %v) = %q, want %q", c.path, c.windows, got, c.want)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatal(err)
		}
		if back := toPath(u, c.windows); back != c.path {
			t.Errorf("toPath(fromPath(%q)) = %q", c.path, back)
		}
	}
}
