package state

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/leadsync/leadsync/internal/recovered"
)

// Check validates a state read from outside (a state file) and repairs
// what is only derived: nil maps, an address or ID missing from its
// record, an unsorted found_by. A record that names a person the state
// does not have is an error: leadsync never writes one, and an export from
// such a state would silently drop rows.
func (s *State) Check() error { return s.check(true) }

// CheckExceptPeople is Check for a reader that has put every person
// through CheckPerson as it read them (the state file's reader does it on
// all cores, while each person is at hand): the people are not gone
// through again.
func (s *State) CheckExceptPeople() error { return s.check(false) }

func (s *State) check(people bool) error {
	switch {
	case s.FormatVersion < 1:
		return fmt.Errorf("format_version is missing or %d: not a leadsync state file", s.FormatVersion)
	case s.Lineage == "":
		return fmt.Errorf("lineage is missing")
	}
	s.normalize()
	// The references are checked while the records are: in a large state
	// each is a pass over every person, and they share nothing but the
	// maps, which neither changes (checkRecords fills in fields of the
	// records, which checkReferences does not read).
	refs := make(chan error, 1)
	go func() { refs <- recovered.Call(s.checkReferences) }()
	err := s.checkRecords(people)
	return recovered.First(err, <-refs)
}

// checkRecords checks that each record is there and keyed by its own
// address or ID, filling in one left out; the people only with people.
func (s *State) checkRecords(people bool) error {
	err := firstByKey(s.Searches, func(k string, v *Search) error {
		if v == nil {
			return fmt.Errorf("search %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("search %q has address %q", k, v.Address)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = firstByKey(s.Profiles, func(k string, v *ProfileRead) error {
		if v == nil {
			return fmt.Errorf("profile %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("profile %q has address %q", k, v.Address)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if people {
		if err := firstByKey(s.People, CheckPerson); err != nil {
			return err
		}
	}
	return firstByKey(s.Failures, func(k string, v *Failure) error {
		if v == nil {
			return fmt.Errorf("failure %q is null", k)
		}
		return nil
	})
}

// firstByKey checks every entry of m and returns the error of the smallest
// key that has one: a file with two faults names the same one on every
// run, whatever order the map gives (entries after a fault's key are not
// checked).
func firstByKey[V any](m map[string]V, check func(k string, v V) error) error {
	var first error
	var firstKey string
	for k, v := range m {
		if first != nil && k >= firstKey {
			continue
		}
		if err := check(k, v); err != nil {
			first, firstKey = err, k
		}
	}
	return first
}

// CheckPerson checks a person read under the key id, as Check does: there,
// and with that ID (an ID left out is filled in); an unsorted found_by is
// sorted.
func CheckPerson(id string, p *Person) error {
	if p == nil {
		return fmt.Errorf("person %q is null", id)
	}
	if p.ID == "" {
		p.ID = id
	} else if p.ID != id {
		return fmt.Errorf("person %q has id %q", id, p.ID)
	}
	if !sort.StringsAreSorted(p.FoundBy) {
		// A copy: the loader shares identical lists between people.
		p.FoundBy = append([]string(nil), p.FoundBy...)
		sort.Strings(p.FoundBy)
	}
	return nil
}

// checkReferences checks that references name people the state has:
// leadsync never writes one that does not, and exporting from such a
// state would silently drop rows (a hand edit that removed people, say).
// A null record is checkRecords' to report.
func (s *State) checkReferences() error {
	if err := s.checkLeadIDs(); err != nil {
		return err
	}
	err := firstByKey(s.Splits, func(k string, t *SplitTree) error {
		if t == nil {
			return fmt.Errorf("split run %q is null", k)
		}
		for _, n := range t.Nodes {
			if n == nil {
				return fmt.Errorf("split run %q has a null node", k)
			}
			for i, id := range n.LeadIDs {
				if _, ok := s.People[id]; !ok {
					return splitNobodyError(k, t.Dimensions, n.Path, i, id)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = firstByKey(s.Imports, func(k string, v *ImportRecord) error {
		if v == nil {
			return fmt.Errorf("import %q is null", k)
		}
		for i, id := range v.PersonIDs {
			if _, ok := s.People[id]; !ok {
				return importNobodyError(k, i, id)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return firstByKey(s.Profiles, func(k string, v *ProfileRead) error {
		if v == nil || v.PersonID == "" {
			return nil
		}
		if _, ok := s.People[v.PersonID]; !ok {
			return profileNobodyError(k, v.PersonID)
		}
		return nil
	})
}

// has reports whether s holds the person of id.
func (s *State) has(id string) bool {
	_, ok := s.People[id]
	return ok
}

// minParallelLeadIDs is the number of lead IDs from which checkLeadIDs
// looks them up on several cores.
const minParallelLeadIDs = 50000

// checkLeadIDs checks that the searches' lead_ids name people the state
// has; on several cores when they are many (a state of 600,000 people
// has as many).
func (s *State) checkLeadIDs() error {
	keys := make([]string, 0, len(s.Searches))
	n := 0
	for k, v := range s.Searches {
		if v != nil {
			keys = append(keys, k)
			n += len(v.LeadIDs)
		}
	}
	// In key order, so that of two faults the same is named on every run.
	sort.Strings(keys)
	check := func(keys []string) error {
		for _, k := range keys {
			for i, id := range s.Searches[k].LeadIDs {
				if _, ok := s.People[id]; !ok {
					return missingLeadError(k, i, id, s.countMissingLeads(s.has))
				}
			}
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), 8)
	if n < minParallelLeadIDs || workers < 2 {
		return check(keys)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		part := keys[len(keys)*w/workers : len(keys)*(w+1)/workers]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = recovered.Call(func() error { return check(part) })
		}()
	}
	wg.Wait()
	return recovered.First(errs...)
}
