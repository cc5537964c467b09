package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad_Defaults(t *testing.T) {
	c, err := LoadFrom(env(map[string]string{
		EnvTableName: "t", EnvMediaBucket: "b", EnvMediaBaseURL: "https://cdn.example/", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
	}))
	require.NoError(t, err)
	assert.Equal(t, 15*time.Minute, c.AccessTokenTTL)
	assert.Equal(t, 7*24*time.Hour, c.RefreshTokenTTL)
	assert.Equal(t, "https://cdn.example", c.MediaBaseURL)
	assert.Equal(t, 10, c.BcryptCost)
	assert.Equal(t, 8080, c.Port)
}

func TestLoad_ReportsEveryProblemAtOnce(t *testing.T) {
	_, err := LoadFrom(env(map[string]string{EnvJWTSecret: "short", EnvAccessTokenTTL: "soon", EnvBcryptCost: "99"}))
	require.Error(t, err)
	for _, want := range []string{EnvTableName, EnvMediaBucket, EnvMediaBaseURL, "at least 32 bytes", EnvAccessTokenTTL, EnvBcryptCost} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestLoad_CreatorTiers(t *testing.T) {
	base := map[string]string{
		EnvTableName: "t", EnvMediaBucket: "b", EnvMediaBaseURL: "https://cdn.example/", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
	}
	c, err := LoadFrom(env(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"premium", "bookstore"}, c.ClubCreatorTiers, "the spec's tiers by default")
	assert.Equal(t, []string{"premium", "bookstore"}, c.ChallengeCreatorTiers)

	base[EnvClubCreatorTiers] = " Free, premium ,bookstore"
	base[EnvChallengeCreatorTiers] = "bookstore"
	c, err = LoadFrom(env(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"free", "premium", "bookstore"}, c.ClubCreatorTiers)
	assert.Equal(t, []string{"bookstore"}, c.ChallengeCreatorTiers)

	base[EnvClubCreatorTiers] = "premium,gold"
	_, err = LoadFrom(env(base))
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvClubCreatorTiers)
}

func TestLoad_CustomDomains(t *testing.T) {
	base := map[string]string{
		EnvTableName: "t", EnvMediaBucket: "b", EnvMediaBaseURL: "https://cdn.example/", EnvJWTSecret: "0123456789abcdef0123456789abcdef",
	}
	c, err := LoadFrom(env(base))
	require.NoError(t, err)
	assert.Empty(t, c.CDNDistributionID, "custom domains are off without a distribution")
	assert.Equal(t, DefaultStoreDomainTarget, c.StoreDomainTargetSuffix)
	assert.Equal(t, DefaultPlatformDomain, c.PlatformDomain)

	base[EnvCDNDistributionID], base[EnvStoreDomainTarget], base[EnvPlatformDomain] = " E2ABC ", "Shops.Example.NET.", "example.net"
	c, err = LoadFrom(env(base))
	require.NoError(t, err)
	assert.Equal(t, "E2ABC", c.CDNDistributionID)
	assert.Equal(t, "shops.example.net", c.StoreDomainTargetSuffix, "lower case, no trailing dot")

	for _, bad := range []string{"https://shops.example.net", "shops.example.net/x", "localhost", "shops example.net"} {
		base[EnvStoreDomainTarget] = bad
		_, err := LoadFrom(env(base))
		assert.ErrorContains(t, err, EnvStoreDomainTarget, bad)
	}
}
