package extpos

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// Sealer encrypts the stored OAuth tokens at rest. context binds a sealed
// value to what it belongs to (the store's id): a value copied to another
// store's record does not open.
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, context string) ([]byte, error)
	Open(ctx context.Context, sealed []byte, context string) ([]byte, error)
}

// The first byte of a sealed value says how it was sealed.
const (
	SealedLocal byte = 1 // AES-256-GCM under a local key
	SealedKMS   byte = 2 // AES-256-GCM under a KMS data key, stored encrypted beside it (kmsseal)
)

// ErrUnsealable is a sealed value that does not open: tampered with,
// sealed for another store, or under a key no longer held.
var ErrUnsealable = errors.New("the stored tokens cannot be decrypted")

// tokenLabel derives the local sealing key from a signing key.
const tokenLabel = "bookplatform extpos tokens"

// LocalSealer seals with AES-256-GCM under a key derived from the
// service's signing keys (the signing key's seals; each opens), for the
// local run and the tests: no KMS there. A rotation keeps what was sealed
// openable while the previous key is held; after that the owner connects
// again.
type LocalSealer struct {
	Keys func() [][]byte
}

func gcmOf(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// SealGCM seals plaintext with AES-256-GCM under key: kind, prefix, a
// random nonce, then the ciphertext, with context as additional data.
func SealGCM(kind byte, key, prefix, plaintext []byte, context string) ([]byte, error) {
	g, err := gcmOf(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append([]byte{kind}, prefix...)
	out = append(out, nonce...)
	return g.Seal(out, nonce, plaintext, []byte(context)), nil
}

// OpenGCM opens what SealGCM sealed, given what follows its prefix.
func OpenGCM(key, rest []byte, context string) ([]byte, error) {
	g, err := gcmOf(key)
	if err != nil {
		return nil, err
	}
	if len(rest) < g.NonceSize() {
		return nil, ErrUnsealable
	}
	out, err := g.Open(nil, rest[:g.NonceSize()], rest[g.NonceSize():], []byte(context))
	if err != nil {
		return nil, ErrUnsealable
	}
	return out, nil
}

// Seal implements Sealer.
func (s LocalSealer) Seal(_ context.Context, plaintext []byte, context string) ([]byte, error) {
	keys := s.Keys()
	if len(keys) == 0 {
		return nil, errors.New("no key to seal the tokens with")
	}
	return SealGCM(SealedLocal, DeriveKey(keys[0], tokenLabel), nil, plaintext, context)
}

// Open implements Sealer.
func (s LocalSealer) Open(_ context.Context, sealed []byte, context string) ([]byte, error) {
	if len(sealed) == 0 || sealed[0] != SealedLocal {
		return nil, ErrUnsealable
	}
	for _, k := range s.Keys() {
		if out, err := OpenGCM(DeriveKey(k, tokenLabel), sealed[1:], context); err == nil {
			return out, nil
		}
	}
	return nil, ErrUnsealable
}
