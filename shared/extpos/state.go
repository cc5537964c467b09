package extpos

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// The ways a callback's state is refused; each is a reason of the
// redirect back to the app (?extpos=error&reason=...).
var (
	ErrStateForged  = errors.New("invalid_state") // not signed by us, or malformed
	ErrStateExpired = errors.New("expired_state") // signed, but too old
	ErrStateReused  = errors.New("state_reused")  // already used once
	// ErrStateBrowser is a state come back to another browser than the
	// one that started the connect: its binding cookie is missing or
	// another's (an authorisation link sent to someone else).
	ErrStateBrowser = errors.New("browser_mismatch")
)

// UsedStates records the states that came back, so each is used once: a
// conditional put of the state's nonce, kept until the state expires
// (then the signature check refuses it anyway).
type UsedStates interface {
	// UseState records nonce as used until expires; ErrStateReused when
	// it already is.
	UseState(ctx context.Context, nonce string, expires time.Time) error
}

// StateClaims is what a state carries.
type StateClaims struct {
	StoreID string `json:"s"`
	UserID  string `json:"u"`
	Nonce   string `json:"n"`
	Expires int64  `json:"e"` // Unix seconds
	// Binding is the SHA-256 (hex) of the random value connect gave the
	// browser in its binding cookie: the callback opens the state only
	// beside that cookie.
	Binding string `json:"b"`
}

// States makes and checks the OAuth state of a connect: the store and the
// owner it is for, a random nonce and an expiry, signed with HMAC-SHA256
// under a key derived from the service's signing keys (Keys: the signing
// key's first; any of them verifies, so a key rotation does not break an
// authorisation under way).
type States struct {
	Keys func() [][]byte
	TTL  time.Duration
	Used UsedStates
	Now  func() time.Time
}

// stateLabel derives the state's key from a signing key: no other use
// shares it (shared/app derives cursors' and idempotency records' keys
// alike).
const stateLabel = "bookplatform extpos oauth state"

// DeriveKey is the 32-byte key of one use (label) of a signing key.
func DeriveKey(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

func (s *States) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// New returns a fresh state for storeID's connect by userID, and the
// browser binding: the value of the cookie the browser that follows the
// state must bring back to the callback. The state carries only the
// binding's hash, so the link to the authorisation page (which may be
// logged, or sent on) does not give the cookie away.
func (s *States) New(storeID, userID string) (state, binding string, err error) {
	keys := s.Keys()
	if len(keys) == 0 {
		return "", "", errors.New("no signing key for the OAuth state")
	}
	var nonce, bind [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", "", err
	}
	if _, err := rand.Read(bind[:]); err != nil {
		return "", "", err
	}
	binding = base64.RawURLEncoding.EncodeToString(bind[:])
	c := StateClaims{StoreID: storeID, UserID: userID, Nonce: hex.EncodeToString(nonce[:]), Expires: s.now().Add(s.TTL).Unix(),
		Binding: bindingHash(binding)}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", "", err
	}
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(sign(keys[0], p)), binding, nil
}

func bindingHash(binding string) string {
	h := sha256.Sum256([]byte(binding))
	return hex.EncodeToString(h[:])
}

func sign(secret []byte, payload string) []byte {
	m := hmac.New(sha256.New, DeriveKey(secret, stateLabel))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// Open checks state and uses it up: ErrStateForged for a bad signature or
// shape, ErrStateExpired past its expiry, ErrStateBrowser when binding
// (the callback's cookie) is not the one New gave with it, ErrStateReused
// the second time. A state refused for its browser is not used up: the
// browser that started the connect may still bring it back. Other errors
// are the used-state store's.
func (s *States) Open(ctx context.Context, state, binding string) (StateClaims, error) {
	p, sig, ok := strings.Cut(state, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || len(state) > 1024 {
		return StateClaims{}, ErrStateForged
	}
	valid := false
	for _, k := range s.Keys() {
		if hmac.Equal(mac, sign(k, p)) {
			valid = true
			break
		}
	}
	if !valid {
		return StateClaims{}, ErrStateForged
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	var c StateClaims
	if err != nil || json.Unmarshal(payload, &c) != nil || c.StoreID == "" || c.Nonce == "" {
		return StateClaims{}, ErrStateForged
	}
	exp := time.Unix(c.Expires, 0)
	if !s.now().Before(exp) {
		return StateClaims{}, ErrStateExpired
	}
	if c.Binding == "" || binding == "" || !hmac.Equal([]byte(bindingHash(binding)), []byte(c.Binding)) {
		return StateClaims{}, ErrStateBrowser
	}
	if err := s.Used.UseState(ctx, c.Nonce, exp); err != nil {
		return StateClaims{}, err
	}
	return c, nil
}
