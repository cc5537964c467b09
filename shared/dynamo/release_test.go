package dynamo_test

import (
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A store's deletion moves its clubs' and challenges' directory entries
// (they become readers'): a write computed from a club or challenge read
// before that move must not apply, or it would delete entries that are no
// longer there and leave the new ones behind, and every count would be
// off. Each such write is conditional on the store it was read with, and
// fails as "changed" (its service reads again). Deterministic here; the
// race through the API is storesapi TestStores_DeleteRacingClubChanges.
func TestRelease_WritesReadBeforeAStoreLetGoAreRefused(t *testing.T) {
	env := testenv.New(t)
	owner := env.Signup(t, "rel_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Release", "slug": "release-shop", "addressLine1": "1 Main St", "city": "Portland", "state": "OR", "postalCode": "97209", "country": "US",
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	storeID := res.JSON["id"].(string)
	res = env.Do("POST", "/v1/clubs", map[string]any{"name": "Club", "storeId": storeID}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	clubID := res.JSON["id"].(string)
	res = env.Do("POST", "/v1/challenges", map[string]any{"name": "Challenge", "goal": 3, "startDate": "2026-01-01", "endDate": "2026-02-01", "storeId": storeID}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	challengeID := res.JSON["id"].(string)

	ctx := t.Context()
	clubStore, challengeStore := dynamo.NewClubs(env.App.Table), dynamo.NewChallenges(env.App.Table)
	club, err := clubStore.GetClub(ctx, clubID)
	require.NoError(t, err)
	challenge, err := challengeStore.GetChallenge(ctx, challengeID)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/release-shop", nil, owner.Token).Status)

	counts := func() map[string]any {
		out := map[string]any{}
		for _, dir := range []string{
			dynamo.ClubDir(clubs.Filter{Scope: clubs.ScopeAll}), dynamo.ClubDir(clubs.Filter{Scope: clubs.ScopeUser}),
			dynamo.ClubDir(clubs.Filter{Scope: clubs.ScopeStore}), dynamo.ChallengeDir(""),
		} {
			out[dir] = env.Item(t, dynamo.DirCountKey(dir))["count"]
		}
		return out
	}
	before := counts()
	assert.Equal(t, map[string]any{"clubs:all:-:any": 1.0, "clubs:user:-:any": 1.0, "clubs:store:-:any": 0.0, "challenges:all": 1.0}, before)
	// The entries they keep (every club's, every challenge's) no longer
	// name the store: a page reads its stores from them.
	refs, _, err := clubStore.ListClubs(ctx, clubs.Filter{Scope: clubs.ScopeAll}, page.Offset{Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, []clubs.Ref{{ID: clubID, HostID: owner.ID}}, refs)
	for _, public := range []*bool{new(true), new(false)} {
		refs, _, err := clubStore.ListClubs(ctx, clubs.Filter{Scope: clubs.ScopeAll, Public: public}, page.Offset{Limit: 10})
		require.NoError(t, err)
		for _, r := range refs {
			assert.Empty(t, r.StoreID)
		}
	}

	_, err = clubStore.UpdateClub(ctx, club, clubs.UpdateClub{IsPublic: new(false)}, club.UpdatedAt)
	assert.ErrorIs(t, err, clubs.ErrChanged, "a visibility change computed with the store's directories")
	assert.ErrorIs(t, clubStore.DeleteClub(ctx, club), clubs.ErrChanged)
	assert.ErrorIs(t, challengeStore.DeleteChallenge(ctx, challenge), challenges.ErrChanged)
	assert.Equal(t, before, counts(), "nothing moved")
	assert.NotNil(t, env.Item(t, dynamo.ClubKey(clubID)))
	assert.NotNil(t, env.Item(t, dynamo.ChallengeKey(challengeID)))
}
