// Package secretsmgr is the Secrets Manager adapter of the access-token
// keys: the secret's format (Value), the keyring that reads it and reads
// it again from time to time (Keyring), and the rotation function's steps
// (Rotator). shared/auth signs and verifies with the keys; this package
// only fetches and rotates them.
//
// The secret holds three keys. "current" signs; "previous" (the key
// before the last rotation) is still accepted, so a token, cursor or
// idempotency record made before a rotation stays valid; "next" (the key
// the coming rotation promotes) is accepted already, so that when one
// process has read the rotated secret and signs with its new current key,
// every process that still holds the old value accepts that key too.
// docs/decisions.md, "Signing key rotation", says why.
package secretsmgr

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/bookplatform/backend/shared/auth"
)

// Value is the secret's JSON.
type Value struct {
	Current  string `json:"current"`
	Previous string `json:"previous,omitempty"`
	Next     string `json:"next,omitempty"`
}

// ParseValue reads a secret string strictly: a JSON object with a
// current key and only the three known members, each key long enough.
func ParseValue(s string) (Value, error) {
	var v Value
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Value{}, fmt.Errorf("signing-key secret: not the JSON object {\"current\", \"previous\", \"next\"}: %w", err)
	}
	if dec.More() {
		return Value{}, errors.New("signing-key secret: data after the JSON object")
	}
	if _, err := v.KeySet(); err != nil {
		return Value{}, fmt.Errorf("signing-key secret: %w", err)
	}
	return v, nil
}

// KeySet is the keys of v: current signs, previous and next are accepted.
func (v Value) KeySet() (auth.KeySet, error) {
	return auth.NewKeySet([]byte(v.Current), []byte(v.Previous), []byte(v.Next))
}

// String is the secret string of v.
func (v Value) String() string {
	b, _ := json.Marshal(v) // three strings: cannot fail
	return string(b)
}

// Rotated is v one rotation later: current becomes previous, next becomes
// current, and a fresh key becomes next. A value without a next key (the
// one the stack generates, holding only current) gets a fresh current
// key as well.
func (v Value) Rotated(fresh func() (string, error)) (Value, error) {
	next, err := fresh()
	if err != nil {
		return Value{}, err
	}
	out := Value{Previous: v.Current, Current: v.Next, Next: next}
	if out.Current == "" {
		if out.Current, err = fresh(); err != nil {
			return Value{}, err
		}
	}
	return out, nil
}

// keyAlphabet and keyLength make a fresh key: 64 letters and digits, about
// 380 bits, the shape the stack's generated first key has (safe in an
// environment variable and a shell).
const (
	keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	keyLength   = 64
)

// NewKey draws a fresh key from crypto/rand.
func NewKey() (string, error) {
	b := make([]byte, keyLength)
	limit := big.NewInt(int64(len(keyAlphabet)))
	for i := range b {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", fmt.Errorf("draw a signing key: %w", err)
		}
		b[i] = keyAlphabet[n.Int64()]
	}
	return string(b), nil
}
