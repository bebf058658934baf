package engine

// SetTrackHeadPage makes readTrackHead read n people at once until the
// returned func is called.
func SetTrackHeadPage(n int) (restore func()) {
	old := trackHeadPage
	trackHeadPage = n
	return func() { trackHeadPage = old }
}
