package api

import (
	"crypto/sha256"
	"encoding/hex"
)

// PaceKeyID is the name under which a SharedPace records the pace of key
// (the pace file, the pg backend's pace table): a salted hash, so that the
// key itself is never stored.
func PaceKeyID(key string) string {
	h := sha256.Sum256([]byte("leadsync pace\x00" + key))
	return hex.EncodeToString(h[:8])
}

// AccountID names the API account of key where leadsync records what it
// spent (the budget ledger): a salted hash, as PaceKeyID, so that the key
// itself is never stored.
func AccountID(key string) string {
	h := sha256.Sum256([]byte("leadsync account\x00" + key))
	return hex.EncodeToString(h[:8])
}
