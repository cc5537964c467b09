package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var secret = []byte("a-secret-of-at-least-thirty-two-bytes")

// A sealed answer opens to itself under its record's key only: not under
// another key (a record swapped to another), not altered, not under
// another secret. It does not hold the body in clear.
func TestSealer_SealsAnswersToTheirRecord(t *testing.T) {
	s := NewSealer(secret)
	a := Answer{Status: 201, Header: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"refreshToken":"rt-secret"}`)}
	sealed, err := s.Seal("ip:203.0.113.1:POST /v1/auth/signup#k1", a)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(sealed, []byte("rt-secret")))

	got, err := s.Open("ip:203.0.113.1:POST /v1/auth/signup#k1", sealed)
	require.NoError(t, err)
	assert.Equal(t, a, got)

	_, err = s.Open("ip:198.51.100.7:POST /v1/auth/signup#k1", sealed)
	assert.ErrorIs(t, err, ErrUnreadable, "another record's key")
	altered := bytes.Clone(sealed)
	altered[len(altered)-1] ^= 1
	_, err = s.Open("ip:203.0.113.1:POST /v1/auth/signup#k1", altered)
	assert.ErrorIs(t, err, ErrUnreadable, "altered")
	_, err = NewSealer([]byte("another-secret-of-thirty-two-bytes!!")).Open("ip:203.0.113.1:POST /v1/auth/signup#k1", sealed)
	assert.ErrorIs(t, err, ErrUnreadable, "another secret")
	_, err = s.Open("k", nil)
	assert.ErrorIs(t, err, ErrUnreadable, "nothing")

	again, err := s.Seal("ip:203.0.113.1:POST /v1/auth/signup#k1", a)
	require.NoError(t, err)
	assert.NotEqual(t, sealed, again, "a fresh nonce each time")

	big := Answer{Status: 200, TooLarge: true}
	sealed, err = s.Seal("k", big)
	require.NoError(t, err)
	got, err = s.Open("k", sealed)
	require.NoError(t, err)
	assert.Equal(t, big, got)
}

// A fingerprint is keyed: it is not the plain SHA-256 of the body (so a
// reader of the table cannot test password guesses against it), it
// depends on the secret, and method, path and body cannot be shifted
// into one another.
func TestSealer_Fingerprint(t *testing.T) {
	s := NewSealer(secret)
	body := []byte(`{"email":"zoe@example.com","password":"long-enough-pw"}`)
	fp := s.Fingerprint("POST", "/v1/auth/signup", body)
	assert.Equal(t, fp, s.Fingerprint("POST", "/v1/auth/signup", body), "stable")
	sum := sha256.Sum256(body)
	assert.False(t, strings.Contains(fp, hex.EncodeToString(sum[:])))
	assert.NotEqual(t, fp, NewSealer([]byte("another-secret-of-thirty-two-bytes!!")).Fingerprint("POST", "/v1/auth/signup", body))
	assert.NotEqual(t, fp, s.Fingerprint("POST", "/v1/auth/signup", append(bytes.Clone(body), ' ')))
	assert.NotEqual(t, s.Fingerprint("POST", "/a", []byte("b")), s.Fingerprint("POST", "/ab", nil))
}

// After a key rotation the sealer holds the new secret first and the old
// one after it: a record kept before the rotation still recognises its
// retry and opens, and new records are sealed under the new secret only.
func TestSealer_AcrossRotation(t *testing.T) {
	newSecret := []byte("the-next-secret-of-thirty-two-bytes!")
	before := NewSealer(secret, newSecret)
	after := NewSealer(newSecret, secret)
	gone := NewSealer(newSecret)

	body := []byte(`{"text":"hello"}`)
	fp := before.Fingerprint("POST", "/v1/lines", body)
	sealed, err := before.Seal("user:u1:POST /v1/lines#k1", Answer{Status: 201, Body: body})
	require.NoError(t, err)

	assert.True(t, after.Matches(fp, "POST", "/v1/lines", body))
	assert.False(t, after.Matches(fp, "POST", "/v1/lines", []byte(`{"text":"other"}`)))
	assert.NotEqual(t, fp, after.Fingerprint("POST", "/v1/lines", body), "new fingerprints are under the new secret")
	got, err := after.Open("user:u1:POST /v1/lines#k1", sealed)
	require.NoError(t, err)
	assert.Equal(t, 201, got.Status)

	resealed, err := after.Seal("k", Answer{Status: 200})
	require.NoError(t, err)
	_, err = gone.Open("k", resealed)
	assert.NoError(t, err, "sealed under the new secret")
	_, err = NewSealer(secret).Open("k", resealed)
	assert.ErrorIs(t, err, ErrUnreadable)

	assert.False(t, gone.Matches(fp, "POST", "/v1/lines", body), "once the old secret is dropped its records are foreign")
}
