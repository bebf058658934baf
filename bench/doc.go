// Package bench holds benchmarks that need more than one package: the
// pacer of internal/api against the sandbox of internal/sandbox, scaled
// down in time. Run them with
//
//	go test ./bench -run '^$' -bench . -benchtime 5x
package bench
