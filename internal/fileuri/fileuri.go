// Package fileuri converts between file: URIs, as editors name documents,
// and file system paths, by the rules of the platform ctxql runs on. On
// Windows "file:///c%3A/w/q.pact" is the path C:\w\q.pact (drive letters
// upper-cased, as filepath.Abs gives them) and "file://server/share/q.pact"
// the UNC path \\server\share\q.pact; elsewhere the URI's path is the path.
package fileuri

import (
	"net/url"
	"runtime"
	"strings"
)

// onWindows selects the Windows rules.
const onWindows = runtime.GOOS == "windows"

// Path returns the file system path that a file: URI names, or "" for a URI
// of another scheme or one that does not parse. A URI without a scheme is
// read as a slash-separated path.
func Path(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" && u.Scheme != "" {
		return ""
	}
	return toPath(u, onWindows)
}

// toPath is Path on a parsed URI, by the Windows rules or by the others.
func toPath(u *url.URL, windows bool) string {
	if !windows {
		return u.Path
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && isDrive(p[1:]) {
		p = strings.ToUpper(p[1:2]) + p[2:]
	} else if isDrive(p) {
		p = strings.ToUpper(p[:1]) + p[1:]
	} else if u.Host != "" && u.Host != "localhost" {
		p = "//" + u.Host + p
	}
	return strings.ReplaceAll(p, "/", `\`)
}

// isDrive reports whether p starts with a drive letter and a colon ("c:").
func isDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// FromPath returns the file: URI of an absolute path.
func FromPath(path string) string {
	return fromPath(path, onWindows)
}

// fromPath is FromPath by the Windows rules or by the others.
func fromPath(path string, windows bool) string {
	u := url.URL{Scheme: "file", Path: path}
	if windows {
		p := strings.ReplaceAll(path, `\`, "/")
		if host, rest, ok := strings.Cut(strings.TrimPrefix(p, "//"), "/"); ok && strings.HasPrefix(p, "//") {
			u.Host, p = host, "/"+rest
		} else if isDrive(p) {
			p = "/" + p
		}
		u.Path = p
	}
	return u.String()
}
