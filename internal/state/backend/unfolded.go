package backend

// Unfolder is a backend whose last Load may have applied calls an
// interrupted apply recorded and the stored state does not hold yet (a
// kill during the write of the rows, or of a JSON state's fold).
type Unfolder interface {
	// Unfolded reports whether the state the last Load gave holds such
	// calls: a Commit of that state writes them into the stored state.
	Unfolded() bool
	// UnfoldedCalls is how many recorded calls (removals and updates
	// without a call among them) the last Load applied that no write has
	// folded in since; 0 when Unfolded is false, and may be 0 when a
	// journal's calls were all in the state already.
	UnfoldedCalls() int
}

// Unfolded reports whether the state b loaded last holds calls of an
// interrupted apply that only a commit writes into the stored state;
// false when b cannot tell.
func Unfolded(b Backend) bool {
	if u, ok := abilityOf[Unfolder](b); ok {
		return u.Unfolded()
	}
	return false
}

// UnfoldedCalls is how many of those calls the state b loaded last holds
// (Unfolder.UnfoldedCalls); 0 when b cannot tell.
func UnfoldedCalls(b Backend) int {
	if u, ok := abilityOf[Unfolder](b); ok && u.Unfolded() {
		return u.UnfoldedCalls()
	}
	return 0
}
