// Command stages times the stages of `leadsync plan --offline` on a
// directory (see bench/bigplan): reading the configuration, loading the
// state, planning, rendering. Each stage runs alone (the command itself
// reads the configuration while the state loads), with the collector set
// as the command sets it, and is reported with its wall time, the CPU time
// the process used in it (user + system, all threads: the figure to trust
// on a shared machine) and the bytes it allocated. A final line gives the
// live heap after a collection, with the state and the plan still held.
//
//	go run ./bench/stages -dir /tmp/bigplan
//	go run ./bench/stages -dir /tmp/bigplan -plans 5        # the plan built 5 times, the mean
//	go run ./bench/stages -dir /tmp/bigplan -cpuprofile /tmp/cpu.out -memprofile /tmp/mem.out
//	go tool pprof -top /tmp/cpu.out
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/leadsync/leadsync/internal/cli"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/cputime"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/views"
)

func main() {
	dir := flag.String("dir", "", "configuration directory")
	plans := flag.Int("plans", 1, "build the plan this many times (the figure is their mean)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the plan stage to this file (with -all, of every stage)")
	all := flag.Bool("all", false, "profile every stage, not only the plan")
	memProfile := flag.String("memprofile", "", "write an allocation profile (every allocation sampled at the default rate, and what is in use at the end) to this file")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: stages -dir DIR [-plans N] [-cpuprofile FILE [-all]] [-memprofile FILE]")
		os.Exit(2)
	}
	// The collector as leadsync plan sets it (cli.planGC).
	defer cli.NewSystemFactory().PlanGC()()
	stop := func() {}
	if *cpuProfile != "" && *all {
		stop = startProfile(*cpuProfile)
	}
	lap := newLaps()
	cfg, diags := config.Load(config.LoadOptions{Dir: *dir, Environ: os.Environ()})
	if diags.HasErrors() {
		fail(diags)
	}
	lap("config", 1)
	st, err := local.NewStore(filepath.Join(*dir, config.DefaultStatePath)).Load()
	if err != nil {
		fail(err)
	}
	lap("state", 1)
	if *cpuProfile != "" && !*all {
		stop = startProfile(*cpuProfile)
	}
	var p *plan.Plan
	n := max(*plans, 1)
	for range n {
		p, _ = plan.Build(cfg, st, plan.Options{Now: time.Now(), Offline: true})
	}
	if !*all {
		stop()
	}
	lap("plan", n)
	views.PlanText(io.Discard, p, false)
	lap("render", 1)
	stop()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("live heap %.0f MB with the state and the plan (%d people, %d changes)\n",
		float64(ms.HeapAlloc)/1e6, len(st.People), len(p.Changes))
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fail(err)
		}
		_ = f.Close()
	}
}

// startProfile starts a CPU profile into path and returns what stops it
// (once).
func startProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fail(err)
	}
	stopped := false
	return func() {
		if !stopped {
			stopped = true
			pprof.StopCPUProfile()
			_ = f.Close()
		}
	}
}

// newLaps returns a function that prints the wall time, the CPU time and
// the bytes allocated since its last call, divided by n (a stage repeated
// n times: their mean).
func newLaps() func(stage string, n int) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	wall, cpu, alloc := time.Now(), cputime.Self(), ms.TotalAlloc
	return func(stage string, n int) {
		runtime.ReadMemStats(&ms)
		mean := ""
		if n > 1 {
			mean = fmt.Sprintf("  (mean of %d)", n)
		}
		fmt.Printf("%-8s %6.0f ms wall %6.0f ms CPU %6.0f MB allocated%s\n", stage,
			float64(time.Since(wall).Microseconds())/1000/float64(n), float64((cputime.Self()-cpu).Microseconds())/1000/float64(n),
			float64(ms.TotalAlloc-alloc)/1e6/float64(n), mean)
		wall, cpu, alloc = time.Now(), cputime.Self(), ms.TotalAlloc
	}
}

func fail(err any) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
