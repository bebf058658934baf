// Command stages times the stages of `leadsync plan --offline` on a
// directory (see bench/bigplan): reading the configuration, loading the
// state, planning, rendering.
//
//	go run ./bench/stages -dir /tmp/bigplan
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/views"
)

func main() {
	dir := flag.String("dir", "", "configuration directory")
	flag.Parse()
	t := time.Now()
	lap := func(what string) {
		fmt.Printf("%-8s %6.0f ms\n", what, float64(time.Since(t).Microseconds())/1000)
		t = time.Now()
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
	p, _ := plan.Build(cfg, st, plan.Options{Now: time.Now(), Offline: true})
	lap("plan")
	views.PlanText(io.Discard, p, false)
	lap("render")
}
