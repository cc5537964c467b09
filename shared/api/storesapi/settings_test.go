package storesapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/config"
)

// The custom domains' settings are the stores group's own: off without a
// distribution, host names folded to lower case without a trailing dot,
// and a value that is no host name an error naming its variable.
func TestReadDomainSettings(t *testing.T) {
	vars := map[string]string{}
	get := func(k string) string { return vars[k] }
	env := config.NewEnv(get)
	s := storesapi.ReadDomainSettings(env)
	require.NoError(t, env.Err())
	assert.Empty(t, s.DistributionID, "custom domains are off without a distribution")
	assert.Equal(t, storesapi.DefaultDomainTarget, s.TargetSuffix)
	assert.Equal(t, storesapi.DefaultPlatformDomain, s.PlatformDomain)

	vars[storesapi.EnvDistributionID], vars[storesapi.EnvDomainTarget], vars[storesapi.EnvPlatformDomain] = " E2ABC ", "Shops.Example.NET.", "example.net"
	env = config.NewEnv(get)
	s = storesapi.ReadDomainSettings(env)
	require.NoError(t, env.Err())
	assert.Equal(t, storesapi.DomainSettings{DistributionID: "E2ABC", TargetSuffix: "shops.example.net", PlatformDomain: "example.net"}, s, "lower case, no trailing dot")

	for _, bad := range []string{"https://shops.example.net", "shops.example.net/x", "localhost", "shops example.net"} {
		vars[storesapi.EnvDomainTarget] = bad
		env = config.NewEnv(get)
		storesapi.ReadDomainSettings(env)
		assert.ErrorContains(t, env.Err(), storesapi.EnvDomainTarget, bad)
	}
}
