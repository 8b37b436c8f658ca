package format

import "fmt"

// PACT formats a .pact file.
func PACT(src []byte) ([]byte, error) { return nil, fmt.Errorf("pact: %w", ErrUnsupported) }
