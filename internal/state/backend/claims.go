package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// Claims are the people whose enrichment the applies of a backend's
// workspaces are paying for right now, for one API account: an apply
// claims a person before it sends their enrichment and releases them once
// the outcome is recorded, so that two applies running at the same moment
// in two workspaces never both pay for one person. A claim is taken for
// all the keys of a person (state.LookupKeys) or none, atomically.
//
// Each handle (Claimer.Claims) is one holder: an apply's. A claim lives
// as long as its holder: the holder's liveness is something the
// operating system or the database ends with its process (the local
// backend's lock on a holder file, the pg backend's advisory lock of its
// session), so that a claim of an apply that was killed blocks nobody:
// the next Claim takes it over and says so (Claim.Since without
// Enriched).
//
// What a holder needs to know of the others lasts as long as a live
// holder may need it: a store keeps a released or ended claim while a
// holder that opened before it lives, and no longer.
type Claims interface {
	// Claim claims the person named by keys for this holder. It holds
	// them (Held) unless another live holder does (HeldBy names its
	// workspace): then nothing changes.
	Claim(keys []string) (Claim, error)
	// Release ends this holder's claim of keys. enriched says that the
	// person's enrichment is recorded in this holder's workspace (paid
	// for, or copied): a holder that opened before now and claims them
	// next is told so (Claim.Since). Otherwise what the keys held before
	// this holder's claim is put back.
	Release(keys []string, enriched bool) error
	// Close ends the holder. Claims it still holds end with it, as if it
	// had died: the next holder to claim them is told (Claim.Since).
	Close() error
}

// Claim is the outcome of Claims.Claim.
type Claim struct {
	// Held is true when this holder holds the person now. Otherwise HeldBy
	// names the workspace of the live holder that does.
	Held   bool
	HeldBy string
	// Since names, when Held, the workspace of another holder that held
	// the person after this holder opened and let them go: with Enriched,
	// it recorded their enrichment there (copy it rather than pay again);
	// without, it ended while holding them (killed), and a call it made
	// may have been charged.
	Since    string
	Enriched bool
}

// Claimer is a backend whose workspaces share their claims (the local
// backend's workspaces of a working copy, the pg backend's of a schema).
type Claimer interface {
	// Claims opens a holder of account's claims (api.AccountID: never the
	// key) for this workspace's apply. Close it when the apply ends.
	Claims(account string) (Claims, error)
}

// ClaimsOf opens a holder of account's claims on b (or the backend it
// wraps), ok false when b keeps none (a state file named with --state).
func ClaimsOf(b Backend, account string) (Claims, bool, error) {
	if c, ok := abilityOf[Claimer](b); ok {
		cl, err := c.Claims(account)
		return cl, err == nil, err
	}
	return nil, false, nil
}

// ClaimKeys are the keys a store keeps the claim of a person under: a
// hash of the account and each of the person's keys, sorted, so that a
// store holds no network ID or page name and two accounts never share a
// claim.
func ClaimKeys(account string, keys []string) []string {
	out := make([]string, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		h := sha256.Sum256([]byte(account + "\x00" + k))
		s := hex.EncodeToString(h[:16])
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
