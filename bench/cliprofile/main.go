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
// writes the heap profile of the collection that left the most live heap
// (checked every 50 ms, written two collections after it); cliprofile
// says on stderr when the command returned before a peak's profile was
// written.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/cli"
)

func main() {
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := flag.String("memprofile", "", "write a heap profile to this file when the command returns")
	peakProfile := flag.String("peakprofile", "", "write to this file the heap profile of the collection that left the most live heap")
	flag.Parse()
	w := &peakWatch{path: *peakProfile}
	if w.path != "" {
		go w.watch()
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
	w.sayPending()
	os.Exit(code)
}

// peakWatch writes the heap profile of the collection that left the
// most live heap to path.
type peakWatch struct {
	path string
	mu   sync.Mutex
	peak uint64 // the most live heap after a collection, in bytes
	due  uint64 // the collection after which the peak's profile is due; 0 for none
}

// watch writes the heap profile to path after each collection that
// leaves more live heap than any before (checked every 50 ms). A heap
// profile shows the objects of the collection before the last one (the
// runtime publishes them a cycle late), so the profile is written two
// collections after the peak's: its in-use figures are the peak's.
func (w *peakWatch) watch() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	for range time.Tick(50 * time.Millisecond) {
		metrics.Read(sample)
		w.mu.Lock()
		live, cycle := sample[0].Value.Uint64(), sample[1].Value.Uint64()
		if live > w.peak {
			w.peak, w.due = live, cycle+2
		}
		if w.due != 0 && cycle >= w.due {
			w.due = 0
			w.write()
		}
		w.mu.Unlock()
	}
}

// write writes the heap profile to path's ".tmp" and renames it over
// path: a reader never sees half a profile, and a failed write leaves
// the previous peak's.
func (w *peakWatch) write() {
	tmp := w.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cliprofile: peak profile:", err)
		return
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, w.path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cliprofile: peak profile:", err)
	}
}

// sayPending says on stderr when the command returned before the profile
// of the last peak was written: the file holds an earlier, lower peak's,
// or none.
func (w *peakWatch) sayPending() {
	if w.path == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.due != 0 {
		fmt.Fprintf(os.Stderr, "cliprofile: the live heap peaked at %d MB after the last profile written to %s; that file holds an earlier peak or none\n",
			w.peak>>20, w.path)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cliprofile:", err)
	os.Exit(1)
}
