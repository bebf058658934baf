// Package cputime measures the CPU time of this process, for the
// benchmarks that report it beside wall time (cpu-ms/op) and for
// bench/stages. A leaf: it imports the standard library only.
package cputime
