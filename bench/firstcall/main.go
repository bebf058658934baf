// Command firstcall times the first paid call of a leadsync command that
// prints JSON lines (apply --json). It reads the lines as they come and
// notes the time of apply_start and of the first call_start: their
// timestamp, else their arrival. At that call_start it sends the command
// SIGINT, unless -stop=false. It prints those times since the start,
// then the command's user and system CPU and its peak RSS, which the
// kernel gives when the command exits.
//
//	go build -o /tmp/firstcall ./bench/firstcall && go build -o /tmp/ls .
//	cd /tmp/copy && LEADSYNC_API_KEY=sandbox-key /tmp/firstcall -- /tmp/ls apply --auto-approve --json
//	/tmp/firstcall -stop=false -- /tmp/ls apply --auto-approve --json --target 'search.cto["c00001"]'
//
// The command runs in the current directory with this environment; its
// standard error goes to this one's (GODEBUG=gctrace=1 prints there).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	stop := flag.Bool("stop", true, "send the command SIGINT at its first call_start")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: firstcall [-stop=false] -- BIN ARGS... (a command that prints JSON lines)")
		os.Exit(2)
	}
	if err := run(flag.Args(), *stop); err != nil {
		fmt.Fprintln(os.Stderr, "firstcall:", err)
		os.Exit(1)
	}
}

// run starts the command args, times its apply_start and first
// call_start, and prints them with its CPU and peak RSS.
func run(args []string, stop bool) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", args[0], err)
	}
	seen := watch(out, start, func() {
		if stop {
			_ = cmd.Process.Signal(os.Interrupt)
		}
	})
	waitErr := cmd.Wait()
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return fmt.Errorf("no resource usage for %s (%v)", args[0], waitErr)
	}
	fmt.Printf("apply_start %s  first call %s  user %.2f s  sys %.2f s  peak RSS %d MB  (%v)\n",
		seen.at("apply_start"), seen.at("call_start"), seconds(ru.Utime), seconds(ru.Stime), ru.Maxrss/1024, cmd.ProcessState)
	return nil
}

// times are the time of the first message of each type, since the start.
type times map[string]time.Duration

// at is the time of message type t, or "never".
func (ts times) at(t string) string {
	if d, ok := ts[t]; ok {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return "never"
}

// watch reads the JSON lines of r to its end, noting the time of the
// first message of each type (its timestamp, else when it came);
// firstCall runs when the first call_start comes.
func watch(r io.Reader, start time.Time, firstCall func()) times {
	seen := times{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		var m struct {
			Type string    `json:"message_type"`
			At   time.Time `json:"timestamp"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Type == "" {
			continue
		}
		if _, ok := seen[m.Type]; ok {
			continue
		}
		at := time.Now()
		if !m.At.IsZero() {
			at = m.At
		}
		seen[m.Type] = at.Sub(start)
		if m.Type == "call_start" {
			firstCall()
		}
	}
	_, _ = io.Copy(io.Discard, r)
	return seen
}

// seconds is tv in seconds.
func seconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}
