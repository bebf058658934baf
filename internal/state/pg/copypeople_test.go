package pg

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// blockedWrites is a write of aheadWriter that waits for release to
// finish, failing on the value failOn; written are the values it wrote.
type blockedWrites struct {
	release chan struct{}
	failOn  int
	written []int
}

func (b *blockedWrites) write(v int) error {
	<-b.release
	if v == b.failOn {
		return errors.New("the server refused the batch")
	}
	b.written = append(b.written, v)
	return nil
}

// While a batch is written, the next is taken (the putter goes on to
// prepare the one after) but not a third: the putter is at most two
// batches ahead of the writes.
func TestAheadWriterTakesOneBatchWhileOneIsWritten(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &blockedWrites{release: make(chan struct{})}
		w := writeAhead(b.write)
		mustNoErr(t, w.put(1), "put 1")
		synctest.Wait() // 1 is being written
		mustNoErr(t, w.put(2), "put 2 while 1 is written")
		third := false
		var err3 error
		go func() {
			err3 = w.put(3)
			third = true
		}()
		synctest.Wait()
		if third {
			t.Fatal("a third batch was taken while one was written and one waited")
		}
		b.release <- struct{}{}
		synctest.Wait()
		if !third {
			t.Fatal("the third batch was not taken once the first was written")
		}
		close(b.release)
		mustNoErr(t, err3, "put 3")
		mustNoErr(t, w.wait(nil), "wait")
		if !slices.Equal(b.written, []int{1, 2, 3}) {
			t.Fatalf("written %v; want [1 2 3]", b.written)
		}
	})
}

// A write that fails stops the putter (put fails) and wait returns the
// write's error, not the putter's.
func TestAheadWriterStopsAtAFailedWrite(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &blockedWrites{release: make(chan struct{}), failOn: 1}
		close(b.release)
		w := writeAhead(b.write)
		var err error
		for v := 1; v < 10 && err == nil; v++ {
			err = w.put(v)
			synctest.Wait()
		}
		if !errors.Is(err, errWriteFailed) {
			t.Fatalf("put after a failed write: %v; want errWriteFailed", err)
		}
		if err := w.wait(err); err == nil || err.Error() != "the server refused the batch" {
			t.Fatalf("wait after a failed write: %v; want the write's error", err)
		}
		if len(b.written) != 0 {
			t.Fatalf("written after the failed write: %v", b.written)
		}
	})
}

// When the putter fails (the source broke), the batches queued are not
// written and wait returns the putter's error.
func TestAheadWriterDropsTheQueueWhenThePutterFails(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &blockedWrites{release: make(chan struct{})}
		w := writeAhead(b.write)
		mustNoErr(t, w.put(1), "put 1")
		synctest.Wait()
		mustNoErr(t, w.put(2), "put 2")
		broken := errors.New("the source went away")
		done := make(chan error)
		go func() { done <- w.wait(broken) }()
		synctest.Wait()
		close(b.release)
		if err := <-done; err != broken {
			t.Fatalf("wait after the source failed: %v; want its error", err)
		}
		if !slices.Equal(b.written, []int{1}) {
			t.Fatalf("written %v; want [1], the batch being written when the source failed", b.written)
		}
	})
}

// countedBatches counts the batches its People passed.
type countedBatches struct {
	backend.Stream
	n *int
}

func (c countedBatches) People(fn func([]*state.Person) error) error {
	return c.Stream.People(func(b []*state.Person) error {
		*c.n++
		return fn(b)
	})
}

// A push the server refuses half-way (a trigger raising an error on a
// person of the first batch) fails with the server's error, leaves the
// workspace as it was, and stops the source: it read at most the few
// batches ahead of the one refused, not the whole state.
func TestPushStopsWhenTheServerRefusesABatch(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	first := backendtest.ManyPeople(t, 30)
	mustNoErr(t, b.Push(first, false), "the first push")
	s := backendtest.ManyPeople(t, 8*backend.StreamBatch)
	ids := slices.Sorted(maps.Keys(s.People))
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, b.sql(`CREATE FUNCTION {s}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.id = '`+ids[100]+`' THEN RAISE EXCEPTION 'person refused by the server'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON {s}.people FOR EACH ROW EXECUTE FUNCTION {s}.refuse()`))
	mustNoErr(t, err, "make a trigger")
	var passed int
	_, err = b.PushStream(countedBatches{backend.MemoryStream(s, "the state pushed"), &passed}, true)
	if err == nil || !strings.Contains(err.Error(), "person refused by the server") {
		t.Fatalf("push refused by the server: %v; want the server's error", err)
	}
	if all := (len(ids) + backend.StreamBatch - 1) / backend.StreamBatch; passed >= all {
		t.Fatalf("the source passed %d batches of %d after the server refused the first", passed, all)
	}
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, first) {
		t.Fatal("the state after a push refused half-way differs from the one before")
	}
}
