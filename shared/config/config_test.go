package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad_Defaults(t *testing.T) {
	c, err := LoadFrom(env(map[string]string{
		EnvTableName: "t", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
	}))
	require.NoError(t, err)
	assert.Equal(t, 15*time.Minute, c.AccessTokenTTL)
	assert.Equal(t, 7*24*time.Hour, c.RefreshTokenTTL)
	assert.Equal(t, 10, c.BcryptCost)
	assert.Equal(t, 8080, c.Port)
}

func TestLoad_ReportsEveryProblemAtOnce(t *testing.T) {
	_, err := LoadFrom(env(map[string]string{EnvJWTSecret: "short", EnvAccessTokenTTL: "soon", EnvBcryptCost: "99"}))
	require.Error(t, err)
	for _, want := range []string{EnvTableName, "at least 32 bytes", EnvAccessTokenTTL, EnvBcryptCost} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestEnv_Tiers(t *testing.T) {
	vars := map[string]string{}
	e := NewEnv(env(vars))
	assert.Equal(t, []string{"premium", "bookstore"}, e.Tiers("X_TIERS", DefaultCreatorTiers), "the default when unset")
	vars["X_TIERS"] = " Free, premium ,bookstore"
	assert.Equal(t, []string{"free", "premium", "bookstore"}, e.Tiers("X_TIERS", DefaultCreatorTiers))
	require.NoError(t, e.Err())

	vars["X_TIERS"] = "premium,gold"
	e.Tiers("X_TIERS", DefaultCreatorTiers)
	e.Tiers("X_TIERS", DefaultCreatorTiers)
	require.Error(t, e.Err())
	assert.Contains(t, e.Err().Error(), "X_TIERS")
	assert.Equal(t, 1, strings.Count(e.Err().Error(), "X_TIERS must"), "a value read twice is reported once")
	assert.Equal(t, []string{"X_TIERS"}, e.Names())
}

func TestEnv_NilReadsDefaults(t *testing.T) {
	var e *Env
	assert.Equal(t, int64(7), e.Int("X", 7, 0, 10))
	assert.Equal(t, "a.example", e.HostName("X", "a.example"))
	assert.NoError(t, e.Err())
}

func TestConfig_EnvReadsWhatLoadRead(t *testing.T) {
	c, err := LoadFrom(env(map[string]string{
		EnvTableName: "t", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
		"GROUP_SETTING": "12",
	}))
	require.NoError(t, err)
	assert.Equal(t, int64(12), c.Env().Int("GROUP_SETTING", 1, 1, 100))
}

func TestLoad_PasswordAttempts(t *testing.T) {
	base := map[string]string{
		EnvTableName: "t", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
	}
	c, err := LoadFrom(env(base))
	require.NoError(t, err)
	assert.Equal(t, 10, c.PasswordAttempts, "per account and address")
	assert.Equal(t, 30, c.PasswordAccountAttempts, "per account from every address")
	assert.Equal(t, 15*time.Minute, c.PasswordAttemptWindow)

	base[EnvPasswordAttempts], base[EnvPasswordAccountAttempts] = "5", "100"
	c, err = LoadFrom(env(base))
	require.NoError(t, err)
	assert.Equal(t, 5, c.PasswordAttempts)
	assert.Equal(t, 100, c.PasswordAccountAttempts)

	base[EnvPasswordAccountAttempts] = "4"
	_, err = LoadFrom(env(base))
	require.Error(t, err, "an account limit below the address limit")
	assert.Contains(t, err.Error(), EnvPasswordAccountAttempts)
}

func TestLoadJWTKeys(t *testing.T) {
	key := func(c byte) string { return strings.Repeat(string(c), 40) }
	tests := []struct {
		name string
		vars map[string]string
		want JWTKeys
		errs []string
	}{
		{name: "one_key", vars: map[string]string{EnvJWTSecret: key('a')},
			want: JWTKeys{JWTSecret: []byte(key('a')), JWTKeysRefresh: DefaultJWTKeysRefresh}},
		{name: "three_keys", vars: map[string]string{EnvJWTSecret: key('a'), EnvJWTPreviousSecret: key('b'), EnvJWTNextSecret: key('c')},
			want: JWTKeys{JWTSecret: []byte(key('a')), JWTPreviousSecret: []byte(key('b')), JWTNextSecret: []byte(key('c')), JWTKeysRefresh: DefaultJWTKeysRefresh}},
		{name: "secret_arn", vars: map[string]string{EnvJWTSecretARN: "arn:aws:secretsmanager:eu-west-1:1:secret:jwt", EnvJWTKeysRefresh: "1m"},
			want: JWTKeys{JWTSecretARN: "arn:aws:secretsmanager:eu-west-1:1:secret:jwt", JWTKeysRefresh: time.Minute}},
		{name: "none", vars: map[string]string{}, errs: []string{"JWT_SECRET is required (or JWT_SECRET_ARN)"}},
		{name: "previous_without_current", vars: map[string]string{EnvJWTPreviousSecret: key('b')}, errs: []string{"JWT_SECRET is required"}},
		{name: "arn_and_keys", vars: map[string]string{EnvJWTSecretARN: "arn:x", EnvJWTSecret: key('a')}, errs: []string{"set either"}},
		{name: "short_previous", vars: map[string]string{EnvJWTSecret: key('a'), EnvJWTPreviousSecret: "short"}, errs: []string{"JWT_PREVIOUS_SECRET must be at least 32 bytes"}},
		{name: "bad_refresh", vars: map[string]string{EnvJWTSecret: key('a'), EnvJWTKeysRefresh: "10ms"}, errs: []string{"JWT_KEYS_REFRESH must be"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := LoadJWTKeys(env(tc.vars))
			if len(tc.errs) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tc.want, k)
				return
			}
			require.Error(t, err)
			for _, want := range tc.errs {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// A function that verifies no token starts without any key; keys that are
// set are still checked, and everything else is required as ever.
func TestLoadWithoutKeys(t *testing.T) {
	for k, v := range map[string]string{EnvTableName: "t",
		EnvJWTSecret: "", EnvJWTPreviousSecret: "", EnvJWTNextSecret: "", EnvJWTSecretARN: ""} {
		t.Setenv(k, v)
	}
	c, err := LoadWithoutKeys()
	require.NoError(t, err)
	assert.True(t, c.JWTKeys.None())
	_, err = Load()
	require.ErrorIs(t, err, ErrNoJWTKeys)

	t.Setenv(EnvJWTSecret, "short")
	_, err = LoadWithoutKeys()
	assert.ErrorContains(t, err, "at least 32 bytes")
	t.Setenv(EnvJWTSecret, "")
	t.Setenv(EnvTableName, "")
	_, err = LoadWithoutKeys()
	assert.ErrorContains(t, err, EnvTableName)
}

func TestLoad_OriginVerifySecret(t *testing.T) {
	base := map[string]string{EnvTableName: "t", EnvJWTSecret: "0123456789abcdef0123456789abcdef"}
	with := func(kv map[string]string) (Config, error) {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range kv {
			m[k] = v
		}
		return LoadFrom(env(m))
	}
	// The secret's ARN is kept for shared/app to read; the value is not known yet.
	c, err := with(map[string]string{EnvOriginVerifySecretARN: "arn:aws:secretsmanager:us-east-1:1:secret:origin"})
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:secretsmanager:us-east-1:1:secret:origin", c.OriginVerifySecretARN)
	assert.Empty(t, c.OriginVerifySecret)
	// Either the value or its secret, not both; a short value is refused.
	_, err = with(map[string]string{EnvOriginVerifySecretARN: "arn:x", EnvOriginVerifySecret: "0123456789abcdef0123456789abcdef"})
	assert.ErrorContains(t, err, "set either")
	_, err = with(map[string]string{EnvOriginVerifySecret: "short"})
	assert.ErrorContains(t, err, "at least 32 bytes")
}
