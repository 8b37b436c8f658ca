package config

import (
	"errors"
	"path"
	"strings"
)

// Match reports whether the slash-separated relative path name matches the
// glob pattern, using the rules of every glob in .ctxql.yaml:
//
//   - segments are separated by "/"; within a segment "*", "?", "[...]" and
//     "\" escapes work as in path.Match (they never cross a "/");
//   - a "**" segment matches zero or more whole segments;
//   - a pattern without a "/" (other than a trailing one) matches at any
//     depth, as if it started with "**/"; a leading "/" or "./" anchors it to
//     the configuration directory;
//   - a pattern that matches a directory also matches everything below it;
//     a trailing "/" makes the pattern match directories only.
//
// A malformed pattern matches nothing; ValidGlob reports why.
func Match(pattern, name string) bool {
	segs, dirOnly, err := compile(pattern)
	if err != nil || name == "" {
		return false
	}
	return matchSegs(segs, strings.Split(name, "/"), dirOnly)
}

// ValidGlob reports whether pattern is a well-formed glob for Match.
func ValidGlob(pattern string) error {
	_, _, err := compile(pattern)
	return err
}

var errEmptyGlob = errors.New("empty glob pattern")

func compile(pattern string) (segs []string, dirOnly bool, err error) {
	p := pattern
	anchored := false
	if after, ok := strings.CutPrefix(p, "./"); ok {
		p, anchored = after, true
	} else if after, ok := strings.CutPrefix(p, "/"); ok {
		p, anchored = after, true
	}
	if after, ok := strings.CutSuffix(p, "/"); ok {
		p, dirOnly = after, true
	}
	if p == "" {
		return nil, false, errEmptyGlob
	}
	segs = strings.Split(p, "/")
	for _, s := range segs {
		if s == "" {
			return nil, false, errors.New("empty path segment in glob pattern")
		}
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, false, err
		}
	}
	if !anchored && len(segs) == 1 {
		segs = append([]string{"**"}, segs...)
	}
	return segs, dirOnly, nil
}

// matchSegs matches whole segments; running out of pattern with path
// segments left is a match of a containing directory.
func matchSegs(p, s []string, dirOnly bool) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			for k := 0; k <= len(s); k++ {
				if matchSegs(p[1:], s[k:], dirOnly) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 {
			return false
		}
		if ok, _ := path.Match(p[0], s[0]); !ok {
			return false
		}
		p, s = p[1:], s[1:]
	}
	return len(s) > 0 || !dirOnly
}
