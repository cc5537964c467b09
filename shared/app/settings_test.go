package app_test

import (
	"testing"

	"github.com/bookplatform/backend/shared/api/clubsapi"
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A group reads its own settings in its constructor (config.Env), and a
// bad value is still a start-up error naming the variable, as a bad core
// setting is; another group's setting is not this function's business.
func TestFromEnv_badGroupSettingStopsTheStart(t *testing.T) {
	keylessEnv(t)
	t.Setenv(config.EnvJWTSecret, "0123456789abcdef0123456789abcdef")
	t.Setenv(clubsapi.EnvCreatorTiers, "premium,gold")
	t.Setenv(wishlistsapi.EnvWishlistMaxItems, "5000")

	_, _, err := app.FromEnv(t.Context(), clubsapi.Group)
	require.Error(t, err)
	assert.ErrorContains(t, err, clubsapi.EnvCreatorTiers)
	assert.NotContains(t, err.Error(), wishlistsapi.EnvWishlistMaxItems)

	_, _, err = app.FromEnv(t.Context(), wishlistsapi.Group)
	assert.ErrorContains(t, err, wishlistsapi.EnvWishlistMaxItems)

	t.Setenv(clubsapi.EnvCreatorTiers, "premium")
	_, g, err := app.FromEnv(t.Context(), clubsapi.Group)
	require.NoError(t, err)
	assert.Equal(t, "clubs", g.Name)
}
