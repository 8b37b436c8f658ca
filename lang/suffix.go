package lang

// Suffix returns the file name suffix of the table by which name is a
// file of this language (".jql.yaml"), lower case; its first suffix when
// name has none of its suffixes. Files of one language with different
// suffixes may be read differently (JQL's JSON and YAML forms).
func (l *Language) Suffix(name string) string {
	if m, s := match(name); m == l {
		return s.ext
	}
	return l.suffixes[0].ext
}
