package groups

import (
	"testing"

	"github.com/bookplatform/backend/shared/api/challengesapi"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local run checks every group's own settings before it starts
// anything, each bad value naming its variable; the tools that clear
// the service's environment know the groups' variables too.
func TestCheckSettings(t *testing.T) {
	vars := map[string]string{
		config.EnvTableName: "t", config.EnvJWTSecret: "0123456789abcdef0123456789abcdef",
		s3media.EnvBucket: "b", s3media.EnvBaseURL: "https://cdn.example",
		// The groups that send read their queues' URLs (the stack sets
		// them on those functions, the local run on itself).
		config.EnvQueueURLCSVImport: "http://sqs.local/000000000000/csv-import",
		config.EnvQueueURLWebhooks:  "http://sqs.local/000000000000/webhooks",
		"QUEUE_URL_WEBHOOKS_DLQ":    "http://sqs.local/000000000000/webhooks-dlq",
	}
	load := func() config.Config {
		cfg, err := config.LoadFrom(func(k string) string { return vars[k] })
		require.NoError(t, err)
		return cfg
	}
	require.NoError(t, CheckSettings(load()))

	vars[challengesapi.EnvCreatorTiers] = "gold"
	vars[wishlistsapi.EnvWishlistsFree] = "-1"
	vars[storesapi.EnvDomainTarget] = "https://shops.example"
	delete(vars, s3media.EnvBucket) // the users and stores groups keep media
	err := CheckSettings(load())
	require.Error(t, err)
	assert.ErrorContains(t, err, challengesapi.EnvCreatorTiers)
	assert.ErrorContains(t, err, wishlistsapi.EnvWishlistsFree)
	assert.ErrorContains(t, err, storesapi.EnvDomainTarget)
	assert.ErrorContains(t, err, s3media.EnvBucket+" is required")
}

func TestNames_includeTheGroupsSettings(t *testing.T) {
	names := Names()
	for _, n := range []string{config.EnvTableName, challengesapi.EnvCreatorTiers, wishlistsapi.EnvWishlistMaxItems,
		s3media.EnvBucket, s3media.EnvBaseURL, storesapi.EnvDistributionID, storesapi.EnvDomainTarget, storesapi.EnvPlatformDomain} {
		assert.Contains(t, names, n)
	}
}
