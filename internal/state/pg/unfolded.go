package pg

// Unfolded reports whether the state the last Load gave holds calls an
// interrupted apply recorded and no write has folded in since (the
// backend.Unfolder ability).
func (b *Backend) Unfolded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seenN > 0
}

// UnfoldedCalls is how many such calls the last Load applied (the
// backend.Unfolder ability); 0 once a write folded them in.
func (b *Backend) UnfoldedCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seenN == 0 {
		return 0
	}
	return b.seenCalls
}
