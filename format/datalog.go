package format

import "fmt"

// Datalog formats a Datalog program.
func Datalog(src []byte) ([]byte, error) { return nil, fmt.Errorf("datalog: %w", ErrUnsupported) }
