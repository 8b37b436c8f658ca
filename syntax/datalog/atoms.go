package datalog

// Atoms returns the head and body atoms of a rule, head first.
func (r *Rule) Atoms() []*Atom {
	if r == nil {
		return nil
	}
	var out []*Atom
	if r.Head != nil {
		out = append(out, r.Head)
	}
	for _, b := range r.Body {
		if b.Atom != nil {
			out = append(out, b.Atom)
		}
	}
	return out
}
