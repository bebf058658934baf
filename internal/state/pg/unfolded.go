package pg

// Unfolded reports whether the state the last Load gave holds calls an
// interrupted apply recorded and no write has folded in since (the
// backend.Unfolder ability).
func (b *Backend) Unfolded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seenN > 0
}
