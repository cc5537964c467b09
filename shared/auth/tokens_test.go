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

func TestTokens_IssueAndVerify(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tk := NewTokens(secret, 15*time.Minute, func() time.Time { return now })
	tok, err := tk.Issue(Claims{UserID: "u1", IsGuest: true, Tier: "free", SessionID: "s1"})
	require.NoError(t, err)

	c, err := tk.Verify(tok)
	require.NoError(t, err)
	assert.Equal(t, Claims{UserID: "u1", IsGuest: true, Tier: "free", SessionID: "s1"}, c)

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
	tk := NewTokens(secret, time.Minute, func() time.Time { return now })
	good, err := tk.Issue(Claims{UserID: "u1", Tier: "free"})
	require.NoError(t, err)

	claims := jwt.MapClaims{"userId": "u1", "sub": "u1", "iss": Issuer, "isGuest": false, "tier": "premium",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	require.NoError(t, err)
	otherKey, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("another-secret-another-secret-32"))
	require.NoError(t, err)
	hs512, err := jwt.NewWithClaims(jwt.SigningMethodHS512, claims).SignedString(secret)
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
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		require.NoError(t, err)
		return s
	}
	expString := sign(func(c jwt.MapClaims) { c["exp"] = strconv.FormatInt(now.Add(time.Hour).Unix(), 10) })
	iatString := sign(func(c jwt.MapClaims) { c["iat"] = strconv.FormatInt(now.Unix(), 10) })
	nbfString := sign(func(c jwt.MapClaims) { c["nbf"] = strconv.FormatInt(now.Unix(), 10) })
	expNull := sign(func(c jwt.MapClaims) { c["exp"] = nil })
	valid := sign(func(jwt.MapClaims) {})
	_, err = tk.Verify(valid)
	require.NoError(t, err, "the same claims with numbers verify")

	later := NewTokens(secret, time.Minute, func() time.Time { return now.Add(2 * time.Minute) })
	cases := map[string]struct {
		tk    *Tokens
		token string
	}{
		"alg none":           {tk, none},
		"wrong key":          {tk, otherKey},
		"HS512 (not pinned)": {tk, hs512},
		"tampered payload":   {tk, tampered},
		"expired":            {later, good},
		"garbage":            {tk, "not.a.jwt"},
		"exp a string":       {tk, expString},
		"iat a string":       {tk, iatString},
		"nbf a string":       {tk, nbfString},
		"exp null":           {tk, expNull},
		"empty":              {tk, ""},
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
