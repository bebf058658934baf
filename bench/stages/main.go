// Command stages times the stages of `leadsync plan --offline` on a
// directory (see bench/bigplan): reading the configuration, loading the
// state, planning, rendering; wall time and CPU time (user and system, all
// threads: what a busy machine does not inflate).
//
//	go run ./bench/stages -dir /tmp/bigplan
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/views"
)

func main() {
	dir := flag.String("dir", "", "configuration directory")
	plans := flag.Int("plans", 1, "build the plan this many times (the figure is their mean)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the plan stage to this file")
	flag.Parse()
	t, c := time.Now(), cpuTime()
	lap := func(what string) {
		fmt.Printf("%-8s %6.0f ms  %6.0f ms CPU\n", what, float64(time.Since(t).Microseconds())/1000, float64((cpuTime()-c).Microseconds())/1000)
		t, c = time.Now(), cpuTime()
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: *dir, Environ: os.Environ()})
	if diags.HasErrors() {
		fmt.Fprintln(os.Stderr, diags.Error())
		os.Exit(1)
	}
	lap("config")
	st, err := local.NewStore(filepath.Join(*dir, config.DefaultStatePath)).Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lap("state")
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var p *plan.Plan
	n := max(*plans, 1)
	for range n {
		p, _ = plan.Build(cfg, st, plan.Options{Now: time.Now(), Offline: true})
	}
	if *profile != "" {
		pprof.StopCPUProfile()
	}
	if n > 1 {
		fmt.Printf("plan     %6.0f ms  %6.0f ms CPU  (mean of %d)\n", float64(time.Since(t).Microseconds())/1000/float64(n), float64((cpuTime()-c).Microseconds())/1000/float64(n), n)
		t, c = time.Now(), cpuTime()
	} else {
		lap("plan")
	}
	views.PlanText(io.Discard, p, false)
	lap("render")
}
