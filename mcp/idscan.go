package mcpserver

import "encoding/json"

// idScanner finds the "id" member of a JSON object's top level in text fed
// to it piece by piece, without keeping more of the text than the id
// itself. It reads the text leniently (it does not validate it), so that
// the id of a message refused for its content — a string the decoder
// rejects, nesting too deep, a line too long to read whole — can still be
// answered. It finds nothing when the text is not an object, when the
// object has more than one "id", or when text follows the object.
type idScanner struct {
	state    scanState
	depth    int
	inString bool
	escaped  bool
	// key collects the current top-level key, up to keyMax bytes.
	key     []byte
	keyLong bool
	// value collects the id's value, up to valueMax bytes.
	value     []byte
	valueLong bool
	found     int  // how many top-level "id" members were seen
	capturing bool // the id's value is being read
	bad       bool // not an object, or text after it
}

type scanState uint8

const (
	scanStart scanState = iota // before the opening brace
	scanKey                    // at depth 1, before or in a key
	scanColon                  // after a key, before the colon
	scanValue                  // after the colon, before or in the value
	scanEnd                    // after the closing brace
)

const (
	keyMax   = 8
	valueMax = 64
)

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// Feed scans the next piece of text.
func (s *idScanner) Feed(p []byte) {
	for _, b := range p {
		if s.bad {
			return
		}
		s.step(b)
	}
}

func (s *idScanner) step(b byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
			if s.state == scanKey {
				s.keyLong = true // an escaped key is never read as "id"
			}
		case b == '\\':
			s.escaped = true
		case b == '"':
			s.inString = false
			if s.state == scanKey {
				s.state = scanColon
			}
		default:
			if s.state == scanKey {
				if len(s.key) < keyMax {
					s.key = append(s.key, b)
				} else {
					s.keyLong = true
				}
			}
		}
		if s.capturing {
			s.capture(b)
			if !s.inString {
				s.capturing = false
			}
		}
		return
	}
	switch s.state {
	case scanStart:
		if b == '{' {
			s.state, s.depth = scanKey, 1
		} else if !isSpace(b) {
			s.bad = true
		}
	case scanKey:
		switch {
		case b == '"':
			s.inString, s.key, s.keyLong = true, s.key[:0], false
		case b == '}':
			s.state, s.depth = scanEnd, 0
		}
	case scanColon:
		if b == ':' {
			s.state = scanValue
			if string(s.key) == "id" && !s.keyLong {
				s.found++
				s.value, s.valueLong = s.value[:0], false
				s.capturing = true
			}
		}
	case scanValue:
		if isSpace(b) && s.depth == 1 && len(s.value) == 0 {
			return
		}
		if s.depth == 1 && (b == ',' || b == '}') {
			s.capturing = false
			if b == ',' {
				s.state = scanKey
			} else {
				s.state, s.depth = scanEnd, 0
			}
			return
		}
		switch b {
		case '"':
			s.inString = true
		case '[', '{':
			s.depth++
		case ']', '}':
			s.depth--
		}
		if s.capturing {
			s.capture(b)
		}
	case scanEnd:
		if !isSpace(b) {
			s.bad = true
		}
	}
}

func (s *idScanner) capture(b byte) {
	if len(s.value) < valueMax {
		s.value = append(s.value, b)
	} else {
		s.valueLong = true
	}
}

// ID returns the raw id found, when the text had exactly one top-level
// "id" whose value is a valid JSON-RPC id; nil otherwise.
func (s *idScanner) ID() json.RawMessage {
	if s.bad || s.found != 1 || s.valueLong || len(s.value) == 0 {
		return nil
	}
	v := trimSpace(s.value)
	if !json.Valid(v) || !validID(v) {
		return nil
	}
	return json.RawMessage(append([]byte(nil), v...))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// recoverID returns the id of the top level of data, or nil.
func recoverID(data []byte) json.RawMessage {
	var s idScanner
	s.Feed(data)
	return s.ID()
}
