// Command cliprofile runs one leadsync command in-process under the Go
// profilers, so that the whole command (configuration read while the
// state loads, plan, printing) can be profiled as users run it:
//
//	go run ./bench/cliprofile -cpuprofile /tmp/cpu.out -memprofile /tmp/heap.out -- plan --offline --chdir /tmp/bigplan >/dev/null
//	go tool pprof -top /tmp/cpu.out
//
// The heap profile is written when the command returns (before the
// process exits): -sample_index=alloc_space shows what was allocated,
// inuse_space what the state and the plan still hold. -peakprofile
// writes the profile of the collection that left the most live heap.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/leadsync/leadsync/internal/cli"
)

func main() {
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := flag.String("memprofile", "", "write a heap profile to this file when the command returns")
	peakProfile := flag.String("peakprofile", "", "write a heap profile to this file each time the live heap after a collection reaches a new peak")
	flag.Parse()
	if *peakProfile != "" {
		go watchPeak(*peakProfile)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
	}
	code := cli.Run(context.Background(), cli.NewSystemFactory(), flag.Args())
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			fail(err)
		}
		runtime.GC() // up-to-date in-use figures
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			fail(err)
		}
		_ = f.Close()
	}
	os.Exit(code)
}

// watchPeak writes the heap profile to path after each collection that
// leaves more live heap than any before (checked every 50 ms). A heap
// profile shows the objects of the collection before the last one (the
// runtime publishes them a cycle late), so the profile is written two
// collections after the peak's: its in-use figures are the peak's.
func watchPeak(path string) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var peak, due uint64
	for range time.Tick(50 * time.Millisecond) {
		metrics.Read(sample)
		live, cycle := sample[0].Value.Uint64(), sample[1].Value.Uint64()
		if live > peak {
			peak, due = live, cycle+2
		}
		if due != 0 && cycle >= due {
			due = 0
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cliprofile:", err)
	os.Exit(1)
}
