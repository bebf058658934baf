// Command cliprofile runs one leadsync command in-process under the Go
// profilers, so that the whole command (configuration read while the
// state loads, plan, printing) can be profiled as users run it:
//
//	go run ./bench/cliprofile -cpuprofile /tmp/cpu.out -memprofile /tmp/heap.out -- plan --offline --chdir /tmp/bigplan >/dev/null
//	go tool pprof -top /tmp/cpu.out
//
// The heap profile is written when the command returns (before the
// process exits): -sample_index=alloc_space shows what was allocated,
// inuse_space what the state and the plan still hold.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/leadsync/leadsync/internal/cli"
)

func main() {
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := flag.String("memprofile", "", "write a heap profile to this file when the command returns")
	flag.Parse()
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cliprofile:", err)
	os.Exit(1)
}
