// Package statefile is the codec of a state file: the JSON the local
// backend saves and `leadsync state pull` prints (format_version,
// lineage, serial, then one search, profile, failure or person per line,
// keys sorted). Decode checks format_version (a newer file is refused,
// never overwritten) and reports damage with its line; the state returned
// has passed state.Check.
//
// The bulk of a large file (people and searches) is read by a small
// purpose-built decoder (its lexer in decode_fast.go, the state's shape in
// decode_fast_state.go) and written by purpose-built writers; tests and
// FuzzLoad check they mean exactly what encoding/json means. Why they are
// kept, with figures: docs/decisions.md. The reader and the writer of the
// fields of a lead and of an enrichment (fields_gen.go) are generated from
// the table of person fields, person.PersonFields, by fieldgen: a new field
// is a row of the table and go generate ./internal/state/statefile
// (TestGeneratedFileIsCurrent fails until it is run). DecodeReaderAt,
// which the local backend loads with, reads a large file in pieces and
// decodes its people on every core as they arrive, keeping copies of
// their strings, so that the file is never held whole beside the state it
// decodes to, and runs the collector less often while it does
// (stream.go); Decode and DecodeOwned read bytes already in memory.
// FileStream hands those pieces over instead of keeping them, and
// EncodeStream writes a file as its people pass (state push and pull:
// stream_source.go, encode_stream.go), so that a state of millions of
// people moves without being held whole.
//
// It imports state (the model), person (the person fields, whose reader
// and writer are generated), api (generation) and recovered (a decoding
// goroutine's panic as the read's error); it must not import a
// backend.
package statefile

//go:generate go run ./fieldgen -o fields_gen.go
