package sandbox

import (
	"testing"
)

// BenchmarkGenerate measures generating a population of the default size,
// which the first sandbox of each seed pays.
func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		generate(0, DefaultPeople)
	}
}

// BenchmarkSearch measures one search over the default population.
func BenchmarkSearch(b *testing.B) {
	s := New(Options{})
	params, _, _ := decodeObject([]byte(`{"keywords":"Senior Engineer","countryFilter":["Germany"]}`))
	q, err := parseSearch(params, true)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.search(q)
	}
}

// BenchmarkDrift measures drifting the default population to epoch 2 at a
// share of 0.15, which the first sandbox of each seed, size, drift and
// epoch pays on top of generating.
func BenchmarkDrift(b *testing.B) {
	base := populationFor(0, DefaultPeople)
	for b.Loop() {
		base.drift(0, 0.15, 2, false)
	}
}
