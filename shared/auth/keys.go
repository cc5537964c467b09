package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// MinKeyBytes is the shortest signing key accepted: an HS256 key shorter
// than the hash output weakens the signature.
const MinKeyBytes = 32

// Key is one HMAC key of the access tokens, with the id tokens name it by
// (their "kid" header).
type Key struct {
	ID     string
	Secret []byte
}

// KeyID is the id of a key: the first 8 bytes, in hex, of the HMAC-SHA256
// of a fixed label under the key. Every process holding a key names it
// alike without an id being stored beside it, and the id reveals nothing
// of the key.
func KeyID(secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("bookplatform access-token key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// ErrUnknownKey is a token naming no key of the set, or none at all.
var ErrUnknownKey = errors.New("the token names no known signing key")

// KeySet is the keys a process holds at one moment: the signing key,
// which signs and seals everything new, then the other keys it still (or
// already) accepts: the previous key, so that what was signed before a
// rotation stays valid until it expires, and the next one, so that no
// process refuses what another, which already rotated, signs.
type KeySet struct {
	keys []Key // signing key first; no two share an id
}

// NewKeySet builds a set from the signing key and the other accepted
// keys; empty ones are left out and a repeated one counts once. Every key
// must be MinKeyBytes long.
func NewKeySet(signing []byte, accepted ...[]byte) (KeySet, error) {
	if len(signing) == 0 {
		return KeySet{}, errors.New("no signing key")
	}
	var s KeySet
	for _, secret := range append([][]byte{signing}, accepted...) {
		if len(secret) == 0 {
			continue
		}
		if len(secret) < MinKeyBytes {
			return KeySet{}, fmt.Errorf("a signing key must be at least %d bytes", MinKeyBytes)
		}
		k := Key{ID: KeyID(secret), Secret: secret}
		if _, dup := s.Find(k.ID); !dup {
			s.keys = append(s.keys, k)
		}
	}
	return s, nil
}

// Signing is the key that signs new tokens and seals new cursors and
// idempotency records.
func (s KeySet) Signing() Key {
	if len(s.keys) == 0 {
		return Key{}
	}
	return s.keys[0]
}

// Find returns the key of id.
func (s KeySet) Find(id string) (Key, bool) {
	for _, k := range s.keys {
		if k.ID == id {
			return k, true
		}
	}
	return Key{}, false
}

// Secrets are the keys' secrets, the signing key's first.
func (s KeySet) Secrets() [][]byte {
	out := make([][]byte, len(s.keys))
	for i, k := range s.keys {
		out[i] = k.Secret
	}
	return out
}

// Keys returns s itself: a fixed set is a Keyring that never changes.
func (s KeySet) Keys() KeySet { return s }

// Keyring hands out the keys a process holds now. A fixed KeySet is one;
// the Secrets Manager keyring (shared/secretsmgr) rereads its secret from
// time to time, so a rotation reaches processes that are already running.
type Keyring interface {
	Keys() KeySet
}
