package auth

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

// keySet is the set of the given keys, the first signing.
func keySet(t *testing.T, signing []byte, accepted ...[]byte) KeySet {
	t.Helper()
	s, err := NewKeySet(signing, accepted...)
	require.NoError(t, err)
	return s
}

// signed signs claims with HS256 under key, naming it in the kid header.
func signed(t *testing.T, key []byte, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = KeyID(key)
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

func TestTokens_IssueAndVerify(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 700_000_000, time.UTC)
	tk := NewTokens(keySet(t, secret), 15*time.Minute, func() time.Time { return now })
	tok, err := tk.Issue(Claims{UserID: "u1", IsGuest: true, Tier: "free", SessionID: "s1"})
	require.NoError(t, err)

	c, err := tk.Verify(tok)
	require.NoError(t, err)
	// The issue time comes back in whole seconds (iat), as the router
	// compares it with an account's SessionsValidAfter.
	assert.Equal(t, Claims{UserID: "u1", IsGuest: true, Tier: "free", SessionID: "s1", IssuedAt: now.Truncate(time.Second)}, c)

	// The spec's claims are all there, with numeric iat and exp.
	var raw jwt.MapClaims
	_, _, err = jwt.NewParser().ParseUnverified(tok, &raw)
	require.NoError(t, err)
	for _, k := range []string{"userId", "isGuest", "tier", "iat", "exp"} {
		assert.Contains(t, raw, k)
	}
	assert.Equal(t, float64(now.Add(15*time.Minute).Unix()), raw["exp"])
}

func TestTokens_Refused(t *testing.T) {
	now := time.Now()
	tk := NewTokens(keySet(t, secret), time.Minute, func() time.Time { return now })
	good, err := tk.Issue(Claims{UserID: "u1", Tier: "free"})
	require.NoError(t, err)

	claims := jwt.MapClaims{"userId": "u1", "sub": "u1", "iss": Issuer, "isGuest": false, "tier": "premium",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	require.NoError(t, err)
	other := []byte("another-secret-another-secret-32")
	otherKey := signed(t, other, claims)
	// Another key under the id of ours: the id only selects a key.
	otherUnderOurID := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	otherUnderOurID.Header["kid"] = KeyID(secret)
	impostor, err := otherUnderOurID.SignedString(other)
	require.NoError(t, err)
	noKid, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	require.NoError(t, err)
	hs512tok := jwt.NewWithClaims(jwt.SigningMethodHS512, claims)
	hs512tok.Header["kid"] = KeyID(secret)
	hs512, err := hs512tok.SignedString(secret)
	require.NoError(t, err)
	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"userId":"u2","sub":"u2","iss":"bookplatform","exp":9999999999,"iat":1}`)) + "." + parts[2]

	// Genuinely signed, with a time claim that is not a number.
	sign := func(edit func(jwt.MapClaims)) string {
		c := jwt.MapClaims{}
		for k, v := range claims {
			c[k] = v
		}
		edit(c)
		return signed(t, secret, c)
	}
	expString := sign(func(c jwt.MapClaims) { c["exp"] = strconv.FormatInt(now.Add(time.Hour).Unix(), 10) })
	iatString := sign(func(c jwt.MapClaims) { c["iat"] = strconv.FormatInt(now.Unix(), 10) })
	nbfString := sign(func(c jwt.MapClaims) { c["nbf"] = strconv.FormatInt(now.Unix(), 10) })
	expNull := sign(func(c jwt.MapClaims) { c["exp"] = nil })
	valid := sign(func(jwt.MapClaims) {})
	_, err = tk.Verify(valid)
	require.NoError(t, err, "the same claims with numbers verify")

	later := NewTokens(keySet(t, secret), time.Minute, func() time.Time { return now.Add(2 * time.Minute) })
	cases := map[string]struct {
		tk    *Tokens
		token string
	}{
		"alg none":            {tk, none},
		"unknown key id":      {tk, otherKey},
		"another key, our id": {tk, impostor},
		"no key id":           {tk, noKid},
		"HS512 (not pinned)":  {tk, hs512},
		"tampered payload":    {tk, tampered},
		"expired":             {later, good},
		"garbage":             {tk, "not.a.jwt"},
		"exp a string":        {tk, expString},
		"iat a string":        {tk, iatString},
		"nbf a string":        {tk, nbfString},
		"exp null":            {tk, expNull},
		"empty":               {tk, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.tk.Verify(c.token)
			assert.ErrorIs(t, err, ErrInvalidToken)
		})
	}
}

func TestRefreshTokens(t *testing.T) {
	a, err := NewRefreshToken()
	require.NoError(t, err)
	b, err := NewRefreshToken()
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	assert.Len(t, a, 43)
	assert.Equal(t, HashRefreshToken(a), HashRefreshToken(a))
	assert.NotContains(t, HashRefreshToken(a), a)
}

func TestPasswords(t *testing.T) {
	h, err := HashPassword("correct horse", 4)
	require.NoError(t, err)
	assert.True(t, CheckPassword(h, "correct horse"))
	assert.False(t, CheckPassword(h, "Correct horse"))
	assert.False(t, CheckPassword("", "anything"))
	assert.False(t, CheckNoUser("anything"))
}

// A rotation: the new key signs, the old one still verifies what it
// signed until that expires, and a key dropped from the set verifies
// nothing any more.
func TestTokens_KeyRotation(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	oldKey, newKey, nextKey := secret, []byte("a-second-key-0123456789abcdef-0123"), []byte("a-third-key-0123456789abcdef-01234")

	before := NewTokens(keySet(t, oldKey, newKey), 15*time.Minute, clock)
	old, err := before.Issue(Claims{UserID: "u1", Tier: "free"})
	require.NoError(t, err)
	header := func(tok string) map[string]any {
		parsed, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{})
		require.NoError(t, err)
		return parsed.Header
	}
	assert.Equal(t, KeyID(oldKey), header(old)["kid"])

	after := NewTokens(keySet(t, newKey, oldKey, nextKey), 15*time.Minute, clock)
	fresh, err := after.Issue(Claims{UserID: "u2", Tier: "free"})
	require.NoError(t, err)
	assert.Equal(t, KeyID(newKey), header(fresh)["kid"])

	// Both verify after the rotation; the fresh one verified already
	// before it, as the next key.
	for _, tok := range []string{old, fresh} {
		_, err := after.Verify(tok)
		assert.NoError(t, err)
	}
	_, err = before.Verify(fresh)
	assert.NoError(t, err, "a process that has not rotated yet accepts the new key")

	// The old token expires as it would have.
	now = now.Add(16 * time.Minute)
	_, err = after.Verify(old)
	assert.ErrorIs(t, err, ErrInvalidToken)

	// Two rotations later the old key is gone: its tokens name an unknown key.
	now = now.Add(-16 * time.Minute)
	later := NewTokens(keySet(t, nextKey, newKey), 15*time.Minute, clock)
	_, err = later.Verify(old)
	assert.ErrorIs(t, err, ErrInvalidToken)
	_, err = later.Verify(fresh)
	assert.NoError(t, err)
}

func TestKeySet(t *testing.T) {
	a, b := []byte("key-a-0123456789abcdef0123456789"), []byte("key-b-0123456789abcdef0123456789")
	s := keySet(t, a, nil, b, a)
	assert.Equal(t, KeyID(a), s.Signing().ID)
	assert.Equal(t, [][]byte{a, b}, s.Secrets(), "empty keys are left out, a repeated one counts once")
	assert.Len(t, KeyID(a), 16)
	assert.NotEqual(t, KeyID(a), KeyID(b))
	_, ok := s.Find(KeyID(b))
	assert.True(t, ok)
	_, ok = s.Find("")
	assert.False(t, ok)

	_, err := NewKeySet(nil, a)
	assert.Error(t, err, "a set needs a signing key")
	_, err = NewKeySet(a, []byte("short"))
	assert.Error(t, err, "every key is 32 bytes or more")
}
