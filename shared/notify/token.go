package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
)

// Unsubscribe tokens: the digest's link names the store and is signed
// with a key derived from the service's signing keys (api.Deps.Keys, as
// the point-of-sale OAuth state derives its own), so there is no other
// secret to manage. It does not expire: an email's unsubscribe link must
// work whenever it is clicked; it stops verifying once the key that
// signed it has rotated out, and every digest carries a fresh one.
type Tokens struct {
	// Keys are the signing keys, current first.
	Keys func() [][]byte
}

// unsubscribeLabel derives the tokens' key: no other use shares it.
const unsubscribeLabel = "bookplatform digest unsubscribe"

// ErrBadToken is an unsubscribe token that is not one the service made.
var ErrBadToken = apperr.Validation("Invalid unsubscribe token", map[string]string{"token": "is not a valid unsubscribe token"})

// Sign is the unsubscribe token of storeID's digest.
func (t Tokens) Sign(storeID string) (string, error) {
	keys := t.Keys()
	if len(keys) == 0 {
		return "", errors.New("notify: no signing key for unsubscribe tokens")
	}
	p := base64.RawURLEncoding.EncodeToString([]byte(storeID))
	return p + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(keys[0], p)), nil
}

// Open returns the store a token names; ErrBadToken when no key signed it.
func (t Tokens) Open(token string) (string, error) {
	p, sig, ok := strings.Cut(token, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || len(token) > 512 {
		return "", ErrBadToken
	}
	for _, k := range t.Keys() {
		if hmac.Equal(mac, tokenMAC(k, p)) {
			id, err := base64.RawURLEncoding.DecodeString(p)
			if err != nil || len(id) == 0 {
				return "", ErrBadToken
			}
			return string(id), nil
		}
	}
	return "", ErrBadToken
}

func tokenMAC(secret []byte, payload string) []byte {
	k := hmac.New(sha256.New, secret)
	k.Write([]byte(unsubscribeLabel))
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write([]byte(payload))
	return m.Sum(nil)
}
