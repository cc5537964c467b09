package storesapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStaff(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "staff_owner")
	store := newStore(t, env, owner, storeBody("staff-shop"))
	storeID := store["id"].(string)
	clerk := env.Signup(t, "clerk")
	helper := env.Signup(t, "helper")

	res := env.Do("POST", "/v1/stores/staff-shop/staff", map[string]any{"email": " " + clerk.Email + " "}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.Equal(t, clerk.ID, res.JSON["userId"])
	assert.Equal(t, "clerk", res.JSON["user"].(map[string]any)["username"])
	assert.NotEmpty(t, res.JSON["addedAt"])
	res = env.Do("POST", "/v1/stores/staff-shop/staff", map[string]any{"userId": helper.ID}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)

	t.Run("stored on the membership, the user and the store's count", func(t *testing.T) {
		assert.NotNil(t, env.Item(t, dynamo.StaffKey("staff-shop", clerk.ID)))
		assert.Equal(t, []string{storeID}, env.Item(t, dynamo.UserKey(clerk.ID))["staffAt"])
		assert.EqualValues(t, 2, env.Item(t, dynamo.StoreKey(storeID))["staffCount"])
		assert.EqualValues(t, 2, env.Do("GET", "/v1/stores/my", nil, owner.Token).JSON["staffCount"])
	})
	t.Run("the list names them, not the owner", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores/staff-shop/staff", nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		items := res.JSON["items"].([]any)
		require.Len(t, items, 2)
		var got []string
		for _, it := range items {
			got = append(got, it.(map[string]any)["userId"].(string))
		}
		assert.ElementsMatch(t, []string{clerk.ID, helper.ID}, got)
		assert.Nil(t, res.JSON["nextCursor"])
		page := env.Do("GET", "/v1/stores/staff-shop/staff?limit=1", nil, owner.Token)
		require.Len(t, page.JSON["items"], 1)
		next := env.Do("GET", "/v1/stores/staff-shop/staff?limit=1&cursor="+page.JSON["nextCursor"].(string), nil, owner.Token)
		require.Len(t, next.JSON["items"], 1)
		assert.NotEqual(t, page.JSON["items"], next.JSON["items"], "pages neither repeat nor skip")
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name   string
			body   map[string]any
			status int
			errors string
		}{
			{"already staff", map[string]any{"userId": clerk.ID}, 400, "ValidationError"},
			{"the owner", map[string]any{"email": owner.Email}, 400, "ValidationError"},
			{"neither", map[string]any{}, 400, "ValidationError"},
			{"both", map[string]any{"email": clerk.Email, "userId": clerk.ID}, 400, "ValidationError"},
			{"malformed email", map[string]any{"email": "nope"}, 400, "ValidationError"},
			{"malformed id", map[string]any{"userId": "nope"}, 400, "ValidationError"},
			{"unknown email", map[string]any{"email": "nobody@example.com"}, 404, "NotFound"},
			{"unknown id", map[string]any{"userId": "00000000-0000-4000-8000-000000000000"}, 404, "NotFound"},
		}
		for _, c := range cases {
			testenv.AssertError(t, env.Do("POST", "/v1/stores/staff-shop/staff", c.body, owner.Token), c.status, c.errors, "")
		}
		assert.EqualValues(t, 2, env.Item(t, dynamo.StoreKey(storeID))["staffCount"], "refusals change no count")
	})
	t.Run("staff do not manage staff", func(t *testing.T) {
		testenv.AssertError(t, env.Do("POST", "/v1/stores/staff-shop/staff", map[string]any{"userId": owner.ID}, clerk.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/staff-shop/staff", nil, clerk.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("DELETE", "/v1/stores/staff-shop/staff/"+helper.ID, nil, clerk.Token), http.StatusForbidden, "Forbidden", "")
	})
	t.Run("removal", func(t *testing.T) {
		res := env.Do("DELETE", "/v1/stores/staff-shop/staff/"+clerk.ID, nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Nil(t, env.Item(t, dynamo.StaffKey("staff-shop", clerk.ID)))
		assert.Nil(t, env.Item(t, dynamo.UserKey(clerk.ID))["staffAt"])
		assert.EqualValues(t, 1, env.Item(t, dynamo.StoreKey(storeID))["staffCount"])
		testenv.AssertError(t, env.Do("DELETE", "/v1/stores/staff-shop/staff/"+clerk.ID, nil, owner.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("DELETE", "/v1/stores/staff-shop/staff/not-a-uuid", nil, owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("staff rights are per store", func(t *testing.T) {
		other := bookseller(t, env, "staff_other")
		newStore(t, env, other, storeBody("other-shop"))
		require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/other-shop/staff", map[string]any{"userId": helper.ID}, other.Token).Status)
		assert.ElementsMatch(t, []string{storeID, env.Do("GET", "/v1/stores/other-shop", nil, "").JSON["id"].(string)}, env.Item(t, dynamo.UserKey(helper.ID))["staffAt"])
		// Staff of other-shop is no owner of staff-shop.
		testenv.AssertError(t, env.Do("PUT", "/v1/stores/other-shop", map[string]any{"description": "x"}, helper.Token), http.StatusForbidden, "Forbidden", "")
	})
}

// Parallel additions keep staffCount exact: it changes in the
// transaction of each membership.
func TestStaff_CountExactUnderConcurrency(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "count_owner")
	store := newStore(t, env, owner, storeBody("count-shop"))
	const n = 10
	people := make([]testenv.Account, n)
	for i := range people {
		people[i] = env.Signup(t, fmt.Sprintf("count_staff_%d", i))
	}
	var wg sync.WaitGroup
	for i := range people {
		wg.Go(func() {
			// Each is added twice at once: one of the two is "already staff".
			for range 2 {
				env.Do("POST", "/v1/stores/count-shop/staff", map[string]any{"userId": people[i].ID}, owner.Token)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, n, env.Item(t, dynamo.StoreKey(store["id"].(string)))["staffCount"])
	for i := range people[:n/2] {
		wg.Go(func() { env.Do("DELETE", "/v1/stores/count-shop/staff/"+people[i].ID, nil, owner.Token) })
	}
	wg.Wait()
	assert.EqualValues(t, n-n/2, env.Item(t, dynamo.StoreKey(store["id"].(string)))["staffCount"])
	res := env.Do("GET", "/v1/stores/count-shop/staff", nil, owner.Token)
	assert.Len(t, res.JSON["items"], n-n/2)
}

func TestHomeStore(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "home_owner")
	store := newStore(t, env, owner, storeBody("home-shop"))
	storeID := store["id"].(string)
	reader := env.Signup(t, "home_reader")

	testenv.AssertError(t, env.Do("GET", "/v1/users/me/home-store", nil, reader.Token), http.StatusNotFound, "NotFound", "No home store set")
	res := env.Do("DELETE", "/v1/users/me/home-store", nil, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "none set is still success")
	assert.Equal(t, true, res.JSON["success"])

	res = env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, map[string]any{"success": true, "homeStoreId": storeID}, res.JSON)
	assert.Equal(t, storeID, env.Do("GET", "/v1/users/me", nil, reader.Token).JSON["homeStoreId"])

	res = env.Do("GET", "/v1/users/me/home-store", nil, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	for _, f := range []string{"id", "name", "slug", "description", "logoUrl", "addressLine1", "city", "state", "country"} {
		assert.Contains(t, res.JSON, f)
	}
	assert.Equal(t, "home-shop", res.JSON["slug"])
	assert.NotNil(t, env.Item(t, dynamo.HomeOfKey(storeID, reader.ID)), "the store knows who chose it")

	t.Run("refusals change nothing", func(t *testing.T) {
		testenv.AssertError(t, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": "00000000-0000-4000-8000-000000000000"}, reader.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": "home-shop"}, reader.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, env.Do("PUT", "/v1/users/me/home-store", map[string]any{}, reader.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": 7}, reader.Token), http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, storeID, env.Do("GET", "/v1/users/me", nil, reader.Token).JSON["homeStoreId"])
	})
	t.Run("moving to another store moves the mark", func(t *testing.T) {
		other := bookseller(t, env, "home_owner2")
		st2 := newStore(t, env, other, storeBody("home-shop-2"))
		require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": st2["id"]}, reader.Token).Status)
		assert.Nil(t, env.Item(t, dynamo.HomeOfKey(storeID, reader.ID)))
		assert.NotNil(t, env.Item(t, dynamo.HomeOfKey(st2["id"].(string), reader.ID)))
		require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, reader.Token).Status)
	})
	t.Run("DELETE forgets it", func(t *testing.T) {
		other := env.Signup(t, "home_reader2")
		require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, other.Token).Status)
		res := env.Do("DELETE", "/v1/users/me/home-store", nil, other.Token)
		require.Equal(t, http.StatusOK, res.Status)
		assert.Nil(t, env.Do("GET", "/v1/users/me", nil, other.Token).JSON["homeStoreId"])
		assert.Nil(t, env.Item(t, dynamo.HomeOfKey(storeID, other.ID)))
	})
	t.Run("without a token is 401", func(t *testing.T) {
		for _, m := range []string{"GET", "PUT", "DELETE"} {
			testenv.AssertError(t, env.Do(m, "/v1/users/me/home-store", map[string]any{"storeId": storeID}, ""), http.StatusUnauthorized, "Unauthorized", "")
		}
	})
}

// Deleting a store takes it back from everyone who pointed at it: the
// readers whose home store it was, its staff, its owner; its slug and
// domain are free again.
func TestStores_Delete(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "del_owner")
	store := newStore(t, env, owner, storeBody("del-shop"))
	storeID := store["id"].(string)
	readers := []testenv.Account{env.Signup(t, "del_reader1"), env.Signup(t, "del_reader2")}
	for _, r := range readers {
		require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, r.Token).Status)
	}
	clerk := env.Signup(t, "del_clerk")
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/del-shop/staff", map[string]any{"userId": clerk.ID}, owner.Token).Status)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/del-shop/domain/verify", map[string]any{"domain": "del.example.com"}, owner.Token).Status)
	testenv.AssertError(t, env.Do("DELETE", "/v1/stores/del-shop", nil, clerk.Token), http.StatusForbidden, "Forbidden", "")

	res := env.Do("DELETE", "/v1/stores/del-shop", nil, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)

	testenv.AssertError(t, env.Do("GET", "/v1/stores/del-shop", nil, ""), http.StatusNotFound, "NotFound", "")
	for _, r := range readers {
		testenv.AssertError(t, env.Do("GET", "/v1/users/me/home-store", nil, r.Token), http.StatusNotFound, "NotFound", "")
		assert.Nil(t, env.Do("GET", "/v1/users/me", nil, r.Token).JSON["homeStoreId"], "no broken reference")
	}
	assert.Nil(t, env.Item(t, dynamo.UserKey(clerk.ID))["staffAt"])
	assert.Nil(t, env.Item(t, dynamo.UserKey(owner.ID))["storeId"])
	for _, k := range []dynamo.Key{
		dynamo.StoreKey(storeID), dynamo.StoreListingKey(storeID),
		dynamo.StoreDomainClaimKey("del.example.com"), dynamo.StaffKey("del-shop", clerk.ID), dynamo.HomeOfKey(storeID, readers[0].ID),
	} {
		assert.Nil(t, env.Item(t, k), "%s %s is left", k.PK, k.SK)
	}
	assert.Zero(t, env.CDN.Count(), "the domain's tenant is deleted")
	claim := env.Item(t, dynamo.StoreSlugClaimKey("del-shop"))
	assert.Equal(t, true, claim["retired"], "the slug is retired, not freed")
	assert.NotContains(t, claim, "storeId")
	testenv.AssertError(t, env.Do("GET", "/v1/stores/my", nil, owner.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, env.Do("DELETE", "/v1/stores/del-shop", nil, owner.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, readers[0].Token), http.StatusNotFound, "NotFound", "")

	t.Run("nobody else may take the slug: a custom domain's record may still name it", func(t *testing.T) {
		other := bookseller(t, env, "del_other")
		res := env.Do("POST", "/v1/stores", storeBody("del-shop"), other.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, "is already taken", testenv.FieldErrors(t, res)["slug"])
		res = env.Do("POST", "/v1/stores/del-shop/domain/verify", map[string]any{"domain": "del.example.com"}, other.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "")
	})
	t.Run("the owner may open a store again under the slug", func(t *testing.T) {
		again := newStore(t, env, owner, storeBody("del-shop"))
		assert.NotEqual(t, storeID, again["id"])
		res := env.Do("GET", "/v1/stores/del-shop/staff", nil, owner.Token)
		assert.Empty(t, res.JSON["items"], "the old store's staff are not the new one's")
	})
}
