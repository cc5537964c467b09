package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is the iss claim of every access token; verification requires it.
const Issuer = "bookplatform"

// ErrInvalidToken is returned for any token that does not verify: bad
// signature, wrong algorithm, expired, malformed or missing claims.
var ErrInvalidToken = errors.New("invalid or expired token")

// Tokens issues and verifies access tokens with HMAC-SHA256. Each token
// names its key in the "kid" header: the keyring's signing key signs, and
// any key the keyring holds verifies, so a key can rotate without
// invalidating the tokens signed before.
type Tokens struct {
	keys      Keyring
	accessTTL time.Duration
	now       func() time.Time
}

// NewTokens returns a token service; now may be nil for the wall clock.
func NewTokens(keys Keyring, accessTTL time.Duration, now func() time.Time) *Tokens {
	if now == nil {
		now = time.Now
	}
	return &Tokens{keys: keys, accessTTL: accessTTL, now: now}
}

// AccessTTL is the lifetime of issued access tokens.
func (t *Tokens) AccessTTL() time.Duration { return t.accessTTL }

type accessClaims struct {
	UserID    string `json:"userId"`
	IsGuest   bool   `json:"isGuest"`
	Tier      string `json:"tier"`
	SessionID string `json:"sid,omitempty"`
	jwt.RegisteredClaims
}

// UnmarshalJSON reads the claims strictly: the time claims (exp, iat,
// nbf) must be JSON numbers. jwt.NumericDate also takes a string that
// holds a number ("exp": "9999999999"), which RFC 7519 does not allow.
func (c *accessClaims) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, name := range []string{"exp", "iat", "nbf"} {
		if v, ok := raw[name]; ok && !isJSONNumber(v) {
			return fmt.Errorf("claim %s is not a number", name)
		}
	}
	type plain accessClaims // without this method
	return json.Unmarshal(data, (*plain)(c))
}

// isJSONNumber reports whether v is a JSON number (not a string, null or
// anything else).
func isJSONNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}

// Issue signs an access token with the spec's claims (userId, isGuest,
// tier, iat, exp) plus sub, iss and the session id.
func (t *Tokens) Issue(c Claims) (string, error) {
	now := t.now()
	claims := accessClaims{
		UserID: c.UserID, IsGuest: c.IsGuest, Tier: c.Tier, SessionID: c.SessionID,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   c.UserID,
			Issuer:    Issuer,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(t.accessTTL)),
		},
	}
	key := t.keys.Keys().Signing()
	if len(key.Secret) == 0 {
		return "", errors.New("sign access token: no signing key")
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = key.ID
	s, err := tok.SignedString(key.Secret)
	if err != nil {
		return "", fmt.Errorf("sign access token: %w", err)
	}
	return s, nil
}

// Verify checks the key (the one the token names must be held), the
// signature (HS256 only: "none" and every other algorithm are refused),
// issuer, expiry and the presence of userId.
func (t *Tokens) Verify(token string) (Claims, error) {
	var c accessClaims
	parsed, err := jwt.ParseWithClaims(token, &c, t.Keyfunc(),
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(t.now),
		jwt.WithLeeway(5*time.Second),
	)
	if err != nil || !parsed.Valid || c.UserID == "" || c.Subject != c.UserID {
		return Claims{}, ErrInvalidToken
	}
	out := Claims{UserID: c.UserID, IsGuest: c.IsGuest, Tier: c.Tier, SessionID: c.SessionID}
	if c.IssuedAt != nil {
		out.IssuedAt = c.IssuedAt.UTC()
	}
	return out, nil
}

// Keyfunc finds the key a token names among the keys held now; a token
// naming none (or no key at all) fails with ErrUnknownKey. The authorizer
// parses with it too, to tell forgeries from tokens that merely expired.
func (t *Tokens) Keyfunc() jwt.Keyfunc {
	keys := t.keys.Keys()
	return func(tok *jwt.Token) (any, error) {
		id, _ := tok.Header["kid"].(string)
		k, ok := keys.Find(id)
		if !ok {
			return nil, ErrUnknownKey
		}
		return k.Secret, nil
	}
}

// NewRefreshToken returns a random opaque refresh token (256 bits). Only
// its hash is stored.
func NewRefreshToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate refresh token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// HashRefreshToken is the stored form of a refresh token. A plain SHA-256
// suffices: the token has 256 bits of entropy, so it cannot be guessed
// from its hash, and lookups need a deterministic key.
func HashRefreshToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
