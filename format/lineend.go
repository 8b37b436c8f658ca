package format

import "bytes"

// KeepLineEnds gives formatted output the line ends of its source: a file
// whose first line ends in CRLF gets CRLF after every line, as editors on
// Windows and core.autocrlf checkouts write them; any other gets LF. The
// printers work in LF, so out is first brought to LF.
func KeepLineEnds(src, out []byte) []byte {
	crlf := crlfSource(src)
	if !crlf && bytes.IndexByte(out, '\r') < 0 {
		return out
	}
	out = bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))
	if crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out
}

// crlfSource reports whether src's first line ends in CRLF.
func crlfSource(src []byte) bool {
	i := bytes.IndexByte(src, '\n')
	return i > 0 && src[i-1] == '\r'
}

// canonicalCR is the IsCanonical answer for a source with a carriage
// return, which the line-by-line comparisons do not handle: print it with
// printer, give the output the source's line ends and compare.
func canonicalCR(src []byte, printer func([]byte) ([]byte, error)) (bool, error) {
	out, err := printer(src)
	if err != nil {
		return false, err
	}
	return bytes.Equal(KeepLineEnds(src, out), src), nil
}
