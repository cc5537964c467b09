package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The role × caller matrix, generated from the route tables like the
// auth matrix: for every route that declares a store role, the store's
// owner passes, its staff pass a staff role and are refused an owner's,
// another signed-in account is refused, a caller without a token is 401,
// and an unknown store is 404 whoever asks. A route that declares the
// bookstore tier refuses the other tiers. A new store route (inventory,
// orders, the point of sale) is covered by declaring its role.
func TestRoutes_RoleMatrix(t *testing.T) {
	env := testenv.New(t)
	routes := groups.Routes()
	n := 0
	for i, r := range routes {
		switch r.Role.Need {
		case httpapi.NeedNone:
			continue
		case httpapi.NeedBookstoreTier:
			n++
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				for _, tier := range []users.Tier{users.TierFree, users.TierPremium} {
					a := env.Signup(t, fmt.Sprintf("tier_%d_%s", i, tier))
					env.SetTier(t, a, tier)
					testenv.AssertError(t, roleSend(env, r, "", a.Token), http.StatusForbidden, "Forbidden", "")
				}
				a := env.Signup(t, fmt.Sprintf("tier_%d_ok", i))
				env.SetTier(t, a, users.TierBookstore)
				assert.NotContains(t, []int{401, 403}, roleSend(env, r, "", a.Token).Status)
				assert.Equal(t, http.StatusUnauthorized, roleSend(env, r, "", "").Status)
			})
			continue
		case httpapi.NeedOperator:
			// The back office: every tier, a store's owner included, is
			// refused; an operator is let through; no token is 401.
			n++
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				for _, tier := range []users.Tier{users.TierFree, users.TierPremium, users.TierBookstore} {
					a := env.Signup(t, fmt.Sprintf("op_%d_%s", i, tier))
					env.SetTier(t, a, tier)
					testenv.AssertError(t, roleSend(env, r, "", a.Token), http.StatusForbidden, "Forbidden", "")
				}
				op := env.Signup(t, fmt.Sprintf("op_%d_ok", i))
				env.MakeOperator(t, op)
				assert.NotContains(t, []int{401, 403}, roleSend(env, r, "", op.Token).Status)
				assert.Equal(t, http.StatusUnauthorized, roleSend(env, r, "", "").Status)
			})
			continue
		}
		n++
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			slug := fmt.Sprintf("role-shop-%d", i)
			anyStaff := r.Role.Need == httpapi.NeedAnyStaff
			owner := env.Signup(t, fmt.Sprintf("role_owner_%d", i))
			env.SetTier(t, owner, users.TierBookstore)
			res := env.Do("POST", "/v1/stores", map[string]any{
				"name": "Role Shop", "slug": slug, "addressLine1": "1 Main St", "city": "Portland", "state": "OR",
				"postalCode": "97209", "country": "US",
			}, owner.Token)
			require.Equal(t, http.StatusCreated, res.Status, "%s", res)
			staff := env.Signup(t, fmt.Sprintf("role_staff_%d", i))
			require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/"+slug+"/staff", map[string]any{"userId": staff.ID}, owner.Token).Status)
			other := env.Signup(t, fmt.Sprintf("role_other_%d", i))
			env.SetTier(t, other, users.TierBookstore) // even another owner's tier gives no right here

			testenv.AssertError(t, roleSend(env, r, slug, ""), http.StatusUnauthorized, "Unauthorized", httpapi.MsgMissingAuth)
			if anyStaff {
				// The record's store decides, in the handler: the router
				// refuses whoever staffs no store (even with the tier).
				testenv.AssertError(t, roleSend(env, r, slug, other.Token), http.StatusForbidden, "Forbidden", "")
				allowed(t, roleSend(env, r, slug, staff.Token), "staff")
				allowed(t, roleSend(env, r, slug, owner.Token), "the owner")
				return
			}
			testenv.AssertError(t, roleSend(env, r, slug, other.Token), http.StatusForbidden, "Forbidden", "")
			testenv.AssertError(t, roleSend(env, r, "no-such-store", owner.Token), http.StatusNotFound, "NotFound", "Store not found")
			testenv.AssertError(t, roleSend(env, r, "no-such-store", other.Token), http.StatusNotFound, "NotFound", "Store not found")
			if r.Role.Store.OrOwn {
				// Without the store's id, the caller's own: its owner's,
				// its only staff member's; none for another user.
				allowed(t, roleSend(env, r, "", owner.Token), "the owner, by default")
				allowed(t, roleSend(env, r, "", staff.Token), "staff, by default")
				testenv.AssertError(t, roleSend(env, r, "", other.Token), http.StatusForbidden, "Forbidden", "")
			}
			if r.Role.Need == httpapi.NeedStoreOwner {
				testenv.AssertError(t, roleSend(env, r, slug, staff.Token), http.StatusForbidden, "Forbidden", "")
			} else {
				allowed(t, roleSend(env, r, slug, staff.Token), "staff")
			}
			// The owner last: a DELETE may remove what it names.
			allowed(t, roleSend(env, r, slug, owner.Token), "the owner")
		})
	}
	require.NotZero(t, n, "no route declares a role")
}

// allowed: the role check let the caller through (whatever the handler
// then made of the sample request).
func allowed(t *testing.T, res *testenv.Response, who string) {
	t.Helper()
	switch res.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		t.Errorf("%s refused: %s", who, res)
	case http.StatusNotFound:
		assert.NotEqual(t, "Store not found", testenv.ErrorOf(t, res)["message"], "%s: the role's store was not found", who)
	}
}

// roleSend sends the route's sample request for the store with slug:
// in the path, or, for a route naming its store by id, that store's id
// (an id no store has for "no-such-store") in the query or the body; an
// empty slug names none (the caller's own store, StoreRef.OrOwn).
func roleSend(env *testenv.Env, r httpapi.Route, slug, token string) *testenv.Response {
	path := samplePath(r.Path)
	if slug != "" {
		path = strings.Replace(path, "no-such-store", slug, 1)
	}
	ct, body := sampleBody(r)
	if ref := r.Role.Store; ref.By == httpapi.ByID && slug != "" {
		id := "00000000-0000-4000-8000-00000000beef"
		if slug != "" && slug != "no-such-store" {
			id, _ = env.Do("GET", "/v1/stores/"+slug, nil, "").JSON["id"].(string)
		}
		switch ref.In {
		case httpapi.InQuery:
			path += "?" + ref.Name + "=" + id
		case httpapi.InBody:
			body = fmt.Sprintf(`{%q: %q}`, ref.Name, id)
		}
	}
	h := map[string]string{}
	if ct != "" {
		h["Content-Type"] = ct
	}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	var b any
	if body != "" {
		b = body
	}
	return env.DoHeaders(r.Method, path, b, h)
}
