package state

import (
	"fmt"
	"sort"
)

// Check validates a state read from outside (a state file) and repairs
// what is only derived: nil maps, an address or ID missing from its
// record, an unsorted found_by. A record that names a person the state
// does not have is an error: leadsync never writes one, and an export from
// such a state would silently drop rows.
func (s *State) Check() error {
	switch {
	case s.FormatVersion < 1:
		return fmt.Errorf("format_version is missing or %d: not a leadsync state file", s.FormatVersion)
	case s.Lineage == "":
		return fmt.Errorf("lineage is missing")
	}
	s.normalize()
	if err := s.checkRecords(); err != nil {
		return err
	}
	return s.checkReferences()
}

// checkRecords checks that each record is there and keyed by its own
// address or ID, filling in one left out.
func (s *State) checkRecords() error {
	for k, v := range s.Searches {
		if v == nil {
			return fmt.Errorf("search %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("search %q has address %q", k, v.Address)
		}
	}
	for k, v := range s.Profiles {
		if v == nil {
			return fmt.Errorf("profile %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("profile %q has address %q", k, v.Address)
		}
	}
	for k, v := range s.People {
		if v == nil {
			return fmt.Errorf("person %q is null", k)
		}
		if v.ID == "" {
			v.ID = k
		} else if v.ID != k {
			return fmt.Errorf("person %q has id %q", k, v.ID)
		}
		if !sort.StringsAreSorted(v.FoundBy) {
			// A copy: the loader shares identical lists between people.
			v.FoundBy = append([]string(nil), v.FoundBy...)
			sort.Strings(v.FoundBy)
		}
	}
	for k, v := range s.Failures {
		if v == nil {
			return fmt.Errorf("failure %q is null", k)
		}
	}
	return nil
}

// checkReferences checks that references name people the state has:
// leadsync never writes one that does not, and exporting from such a
// state would silently drop rows (a hand edit that removed people, say).
func (s *State) checkReferences() error {
	for k, v := range s.Searches {
		for i, id := range v.LeadIDs {
			if _, ok := s.People[id]; !ok {
				return fmt.Errorf("searches.%s.lead_ids[%d]: person %q is not in people (remove it from lead_ids, or restore the person)", k, i, id)
			}
		}
	}
	for k, t := range s.Splits {
		if t == nil {
			return fmt.Errorf("split run %q is null", k)
		}
		for _, n := range t.Nodes {
			if n == nil {
				return fmt.Errorf("split run %q has a null node", k)
			}
			for i, id := range n.LeadIDs {
				if _, ok := s.People[id]; !ok {
					return fmt.Errorf("splits.%s: node %q lead_ids[%d]: person %q is not in people", k, SplitFilters(t.Dimensions, n.Path), i, id)
				}
			}
		}
	}
	for k, v := range s.Imports {
		if v == nil {
			return fmt.Errorf("import %q is null", k)
		}
		for i, id := range v.PersonIDs {
			if _, ok := s.People[id]; !ok {
				return fmt.Errorf("imports.%s.person_ids[%d]: person %q is not in people (remove it from person_ids, or restore the person)", k, i, id)
			}
		}
	}
	for k, v := range s.Profiles {
		if v.PersonID == "" {
			continue
		}
		if _, ok := s.People[v.PersonID]; !ok {
			return fmt.Errorf("profiles.%s.person_id: person %q is not in people (remove the profile with leadsync state rm %s to read it again)", k, v.PersonID, k)
		}
	}
	return nil
}
