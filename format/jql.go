package format

import "fmt"

// JQL formats a JQL document; name decides between JSON and YAML text forms.
func JQL(name string, src []byte) ([]byte, error) {
	return nil, fmt.Errorf("jql: %w", ErrUnsupported)
}
