package storesapi_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A custom domain's whole life: verify (PENDING, CNAME instructions, no
// CDN tenant yet), DNS pointed (its tenant, VERIFIED, verifiedAt), deployed (ACTIVE), the
// storefront's lookup, removal (tenant gone, name free, NONE).
func TestDomains_Lifecycle(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "dom_owner")
	store := newStore(t, env, owner, storeBody("dom-shop"))

	res := env.Do("POST", "/v1/stores/dom-shop/domain/verify", map[string]any{"domain": "  Books.Example.COM. "}, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, map[string]any{"id": store["id"], "customDomain": "books.example.com", "customDomainStatus": "PENDING"}, res.JSON["store"])
	in := res.JSON["instructions"].(map[string]any)
	target := "dom-shop." + env.Domains.TargetSuffix
	assert.Equal(t, map[string]any{"type": "CNAME", "name": "books.example.com", "value": target}, in["record"])
	assert.Contains(t, in["message"], target)
	assert.NotEmpty(t, in["note"])
	assert.Empty(t, env.CDN.Domains(), "no tenant (and no certificate) before DNS names the store")

	status := func() map[string]any {
		t.Helper()
		res := env.Do("GET", "/v1/stores/dom-shop/domain/status", nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		return res.JSON
	}
	s := status()
	assert.Equal(t, "PENDING", s["status"])
	assert.Equal(t, "books.example.com", s["domain"])
	assert.Nil(t, s["verifiedAt"])
	assert.Contains(t, s["message"], target, "says what DNS still lacks")

	t.Run("a CNAME elsewhere does not verify", func(t *testing.T) {
		env.DNS.SetCNAME("books.example.com", "somewhere.else.example.net")
		assert.Equal(t, "PENDING", status()["status"])
	})

	env.DNS.SetCNAME("books.example.com", target)
	s = status()
	assert.Equal(t, "VERIFIED", s["status"], "CNAME resolves and the certificate is issued")
	assert.Equal(t, []string{"books.example.com"}, env.CDN.Domains(), "one tenant for the domain, made once DNS named the store")
	require.NotNil(t, s["verifiedAt"])
	verifiedAt := s["verifiedAt"]
	assert.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/dom-shop", nil, "").JSON["customDomainStatus"])

	env.CDN.DeployAll()
	s = status()
	assert.Equal(t, "ACTIVE", s["status"])
	assert.Equal(t, verifiedAt, s["verifiedAt"], "verifiedAt is when it was first verified")

	t.Run("the storefront's lookup", func(t *testing.T) {
		for _, d := range []string{"books.example.com", "BOOKS.example.com.", " books.example.com "} {
			res := env.Do("GET", "/v1/stores/lookup-by-domain?domain="+urlEscape(d), nil, "")
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.Equal(t, map[string]any{"id": store["id"], "slug": "dom-shop", "name": store["name"],
				"customDomain": "books.example.com", "customDomainStatus": "ACTIVE"}, res.JSON["store"])
		}
		testenv.AssertError(t, env.Do("GET", "/v1/stores/lookup-by-domain?domain=unknown.example.com", nil, ""), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/lookup-by-domain?domain=", nil, ""), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/lookup-by-domain?domain=http%3A%2F%2Fx", nil, ""), http.StatusNotFound, "NotFound", "")
	})
	t.Run("a rename shows in the lookup", func(t *testing.T) {
		require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/stores/dom-shop", map[string]any{"name": "Renamed Books"}, owner.Token).Status)
		res := env.Do("GET", "/v1/stores/lookup-by-domain?domain=books.example.com", nil, "")
		assert.Equal(t, "Renamed Books", res.JSON["store"].(map[string]any)["name"])
	})
	t.Run("the public views show the domain, not its internals", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores/dom-shop/website-config", nil, "")
		assert.Equal(t, map[string]any{"custom": "books.example.com", "status": "ACTIVE"}, res.JSON["store"].(map[string]any)["domain"])
		assert.NotContains(t, string(res.Body), "dt_", "no tenant id")
	})

	res = env.Do("DELETE", "/v1/stores/dom-shop/domain", nil, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, true, res.JSON["success"])
	assert.Zero(t, env.CDN.Count(), "the tenant is deleted")
	assert.Equal(t, "NONE", status()["status"])
	assert.Nil(t, status()["domain"])
	testenv.AssertError(t, env.Do("GET", "/v1/stores/lookup-by-domain?domain=books.example.com", nil, ""), http.StatusNotFound, "NotFound", "")
	assert.Nil(t, env.Item(t, dynamo.StoreDomainClaimKey("books.example.com")), "the name is free")
	testenv.AssertError(t, env.Do("DELETE", "/v1/stores/dom-shop/domain", nil, owner.Token), http.StatusNotFound, "NotFound", "")

	t.Run("the freed name can be claimed by another store", func(t *testing.T) {
		other := bookseller(t, env, "dom_other")
		newStore(t, env, other, storeBody("dom-other"))
		res := env.Do("POST", "/v1/stores/dom-other/domain/verify", map[string]any{"domain": "books.example.com"}, other.Token)
		assert.Equal(t, http.StatusOK, res.Status, "%s", res)
	})
}

func TestDomains_Validation(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "domv_owner")
	newStore(t, env, owner, storeBody("domv-shop"))
	bad := map[string]string{
		"empty":               "",
		"a scheme":            "https://books.example.com",
		"a path":              "books.example.com/shop",
		"a port":              "books.example.com:8443",
		"an IPv4 address":     "192.0.2.10",
		"an IPv6 address":     "[2001:db8::1]",
		"one label":           "localhost",
		"a reserved TLD":      "books.test",
		"a public suffix":     "co.uk",
		"an underscore":       "my_books.example.com",
		"a leading hyphen":    "-books.example.com",
		"a label too long":    fmt.Sprintf("%065d.example.com", 0),
		"the platform itself": "bookplatform.example",
		"under the platform":  "shop.bookplatform.example",
		"under the targets":   "x.stores.bookplatform.example",
		"an email":            "me@example.com",
		"spaces inside":       "books example.com",
	}
	for name, d := range bad {
		t.Run(name, func(t *testing.T) {
			res := env.Do("POST", "/v1/stores/domv-shop/domain/verify", map[string]any{"domain": d}, owner.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), "domain")
		})
	}
	assert.Zero(t, env.CDN.Count(), "no refused domain got a tenant")

	t.Run("an internationalized name is stored in punycode", func(t *testing.T) {
		res := env.Do("POST", "/v1/stores/domv-shop/domain/verify", map[string]any{"domain": "Bücher.example.de"}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "xn--bcher-kva.example.de", res.JSON["store"].(map[string]any)["customDomain"])
		res = env.Do("GET", "/v1/stores/lookup-by-domain?domain="+urlEscape("bücher.example.de"), nil, "")
		assert.Equal(t, http.StatusOK, res.Status, "the lookup normalizes the same way")
	})
	target := "domv-shop." + env.Domains.TargetSuffix
	t.Run("changing the domain frees the old one and deletes its tenant", func(t *testing.T) {
		env.DNS.SetCNAME("xn--bcher-kva.example.de", target)
		require.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/domv-shop/domain/status", nil, owner.Token).JSON["status"])
		require.Equal(t, []string{"xn--bcher-kva.example.de"}, env.CDN.Domains())
		res := env.Do("POST", "/v1/stores/domv-shop/domain/verify", map[string]any{"domain": "shop.example.org"}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Nil(t, env.Item(t, dynamo.StoreDomainClaimKey("xn--bcher-kva.example.de")))
		assert.Empty(t, env.CDN.Domains(), "the old tenant is gone; the new domain gets one once DNS names the store")
	})
	t.Run("verifying the same domain again keeps its tenant and restarts at PENDING", func(t *testing.T) {
		env.DNS.SetCNAME("shop.example.org", target)
		require.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/domv-shop/domain/status", nil, owner.Token).JSON["status"])
		res := env.Do("POST", "/v1/stores/domv-shop/domain/verify", map[string]any{"domain": "shop.example.org"}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "PENDING", res.JSON["store"].(map[string]any)["customDomainStatus"])
		assert.Equal(t, []string{"shop.example.org"}, env.CDN.Domains())
	})
}

// Of stores claiming one domain at once, exactly one gets it, and no
// tenant is made before DNS names the winner.
func TestDomains_ConcurrentClaimsHaveOneWinner(t *testing.T) {
	env := testenv.New(t)
	const n = 6
	owners := make([]testenv.Account, n)
	for i := range owners {
		owners[i] = bookseller(t, env, fmt.Sprintf("domrace_%d", i))
		newStore(t, env, owners[i], storeBody(fmt.Sprintf("domrace-%d", i)))
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range owners {
		wg.Go(func() {
			res := env.Do("POST", fmt.Sprintf("/v1/stores/domrace-%d/domain/verify", i), map[string]any{"domain": "contested.example.com"}, owners[i].Token)
			statuses[i] = res.Status
		})
	}
	wg.Wait()
	won := -1
	for i, s := range statuses {
		if s == http.StatusOK {
			require.Equal(t, -1, won, "two winners: %v", statuses)
			won = i
		} else {
			assert.Equal(t, http.StatusBadRequest, s, "the losers are told it is taken")
		}
	}
	require.NotEqual(t, -1, won, "%v", statuses)
	claim := env.Item(t, dynamo.StoreDomainClaimKey("contested.example.com"))
	winnerStore := env.Do("GET", fmt.Sprintf("/v1/stores/domrace-%d", won), nil, "").JSON
	assert.Equal(t, winnerStore["id"], claim["storeId"])
	assert.Empty(t, env.CDN.Domains())
}

// A domain claimed but never verified does not block the one who
// controls it: a store whose CNAME record for the domain points at its
// own target takes the claim over in its verify, in one transaction that
// also clears the holder's domain; the holder's CDN tenant goes first
// (a domain is served by one tenant). Without that proof the verify is
// refused and says what record would prove it.
func TestDomains_UnverifiedClaimYieldsToDNSProof(t *testing.T) {
	env := testenv.New(t)
	squatter := bookseller(t, env, "dom_squatter")
	squat := newStore(t, env, squatter, storeBody("squat-shop"))
	real := bookseller(t, env, "dom_real")
	mine := newStore(t, env, real, storeBody("real-shop"))
	const domain = "books.example.com"

	res := env.Do("POST", "/v1/stores/squat-shop/domain/verify", map[string]any{"domain": domain}, squatter.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	require.Empty(t, env.CDN.Domains(), "a claim nobody proved has no tenant")

	target := "real-shop." + env.Domains.TargetSuffix
	t.Run("without DNS proof the claim holds, and the refusal says how to prove it", func(t *testing.T) {
		res := env.Do("POST", "/v1/stores/real-shop/domain/verify", map[string]any{"domain": domain}, real.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res)["domain"], target)
		env.DNS.SetCNAME(domain, "squat-shop.elsewhere.example.net")
		res = env.Do("POST", "/v1/stores/real-shop/domain/verify", map[string]any{"domain": domain}, real.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, squat["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])
		assert.Equal(t, "PENDING", env.Do("GET", "/v1/stores/squat-shop", nil, "").JSON["customDomainStatus"])
	})

	env.DNS.SetCNAME(domain, target)
	res = env.Do("POST", "/v1/stores/real-shop/domain/verify", map[string]any{"domain": domain}, real.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, map[string]any{"id": mine["id"], "customDomain": domain, "customDomainStatus": "PENDING"}, res.JSON["store"])

	claim := env.Item(t, dynamo.StoreDomainClaimKey(domain))
	assert.Equal(t, mine["id"], claim["storeId"])
	assert.Equal(t, "real-shop", claim["slug"])
	held := env.Do("GET", "/v1/stores/squat-shop", nil, "").JSON
	assert.Equal(t, "NONE", held["customDomainStatus"], "the holder's domain is cleared")
	assert.Nil(t, held["customDomain"])
	assert.NotContains(t, env.Item(t, dynamo.StoreKey(squat["id"].(string))), "domainTenantId")
	assert.Empty(t, env.CDN.Domains(), "no tenant until the new holder's status check")

	lookup := env.Do("GET", "/v1/stores/lookup-by-domain?domain="+domain, nil, "")
	assert.Equal(t, "real-shop", lookup.JSON["store"].(map[string]any)["slug"])
	s := env.Do("GET", "/v1/stores/squat-shop/domain/status", nil, squatter.Token)
	assert.Equal(t, "NONE", s.JSON["status"])
	s = env.Do("GET", "/v1/stores/real-shop/domain/status", nil, real.Token)
	assert.Equal(t, "VERIFIED", s.JSON["status"], "the new holder goes on as any claim does")
	assert.Equal(t, []string{domain}, env.CDN.Domains())
	assert.NotEmpty(t, env.Item(t, dynamo.StoreKey(mine["id"].(string)))["domainTenantId"])

	t.Run("the former holder cannot take it back", func(t *testing.T) {
		res := env.Do("POST", "/v1/stores/squat-shop/domain/verify", map[string]any{"domain": domain}, squatter.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, mine["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])
	})
}

// A domain verified once is its store's until the store lets it go:
// VERIFIED, ACTIVE, and PENDING again after DNS moved away, none is taken
// over, even by a store the domain's CNAME now points at.
func TestDomains_VerifiedClaimIsNeverTaken(t *testing.T) {
	env := testenv.New(t)
	holder := bookseller(t, env, "domv_holder")
	held := newStore(t, env, holder, storeBody("held-shop"))
	other := bookseller(t, env, "domv_taker")
	newStore(t, env, other, storeBody("taker-shop"))
	const domain = "shop.example.org"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/held-shop/domain/verify", map[string]any{"domain": domain}, holder.Token).Status)
	env.DNS.SetCNAME(domain, "held-shop."+env.Domains.TargetSuffix)
	status := func() string {
		t.Helper()
		res := env.Do("GET", "/v1/stores/held-shop/domain/status", nil, holder.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		return res.JSON["status"].(string)
	}
	takeOver := func(t *testing.T) {
		t.Helper()
		env.DNS.SetCNAME(domain, "taker-shop."+env.Domains.TargetSuffix)
		res := env.Do("POST", "/v1/stores/taker-shop/domain/verify", map[string]any{"domain": domain}, other.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, "is used by another store", testenv.FieldErrors(t, res)["domain"])
		assert.Equal(t, held["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])
		assert.Equal(t, domain, env.Do("GET", "/v1/stores/held-shop", nil, "").JSON["customDomain"])
		assert.Equal(t, []string{domain}, env.CDN.Domains(), "the holder's tenant stays")
		env.DNS.SetCNAME(domain, "held-shop."+env.Domains.TargetSuffix)
	}

	require.Equal(t, "VERIFIED", status())
	t.Run("VERIFIED", takeOver)
	env.CDN.DeployAll()
	require.Equal(t, "ACTIVE", status())
	t.Run("ACTIVE", takeOver)
	t.Run("PENDING again after DNS moved away", func(t *testing.T) {
		env.DNS.SetCNAME(domain, "taker-shop."+env.Domains.TargetSuffix)
		require.Equal(t, "PENDING", status())
		takeOver(t)
	})
}

// A takeover is conditional on the claim as it was read: if the holder
// verified in between, the transaction is refused and nothing changes.
func TestDomains_TakeOverIsConditionalOnTheClaimRead(t *testing.T) {
	env := testenv.New(t)
	holder := bookseller(t, env, "domc_holder")
	held := newStore(t, env, holder, storeBody("race-held"))
	other := bookseller(t, env, "domc_taker")
	taker := newStore(t, env, other, storeBody("race-taker"))
	const domain = "race.example.net"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/race-held/domain/verify", map[string]any{"domain": domain}, holder.Token).Status)
	ctx := t.Context()
	bs := dynamo.NewBookstores(env.App.Table)
	claim, holderDomain, err := bs.DomainHolder(ctx, domain)
	require.NoError(t, err)
	assert.Equal(t, held["id"], claim.StoreID)
	assert.Nil(t, claim.VerifiedAt)

	// The holder verifies after the claim was read.
	env.DNS.SetCNAME(domain, "race-held."+env.Domains.TargetSuffix)
	require.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/race-held/domain/status", nil, holder.Token).JSON["status"])

	st, err := bs.GetStore(ctx, taker["id"].(string))
	require.NoError(t, err)
	err = bs.TakeOverDomain(ctx, st, claim, holderDomain.TenantID, time.Now())
	require.ErrorIs(t, err, stores.ErrDomainTaken)
	assert.Equal(t, held["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])
	assert.Equal(t, "NONE", env.Do("GET", "/v1/stores/race-taker", nil, "").JSON["customDomainStatus"])
	assert.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/race-held", nil, "").JSON["customDomainStatus"])
}

// In AWS every {slug}.<suffix> is one wildcard CNAME of the CDN's
// endpoint, so every store's target ends at the same name: only the
// record naming the store's own target proves a domain is its owner's.
// A domain pointed at its owner's store proves nothing for another store.
func TestDomains_ProofIsTheStoresOwnTarget(t *testing.T) {
	env := testenv.New(t)
	sfx := env.Domains.TargetSuffix
	edge := "edge." + sfx // stands for the routing endpoint (dxxxx.cloudfront.net)
	owner := bookseller(t, env, "wc_owner")
	newStore(t, env, owner, storeBody("owner-shop"))
	thief := bookseller(t, env, "wc_thief")
	thiefStore := newStore(t, env, thief, storeBody("thief-shop"))
	env.DNS.SetCNAME("owner-shop."+sfx, edge)
	env.DNS.SetCNAME("thief-shop."+sfx, edge)

	const domain = "realowner.example.com"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/owner-shop/domain/verify", map[string]any{"domain": domain}, owner.Token).Status)
	// The real owner sets the record it was told to set.
	env.DNS.SetCNAME(domain, "owner-shop."+sfx)

	// Before the owner's next status check, the thief verifies the same domain.
	res := env.Do("POST", "/v1/stores/thief-shop/domain/verify", map[string]any{"domain": domain}, thief.Token)
	assert.NotEqual(t, http.StatusOK, res.Status, "a store whose target the domain does NOT name took it over: %s", res)
	assert.NotEqual(t, thiefStore["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])
	assert.Equal(t, "VERIFIED", env.Do("GET", "/v1/stores/owner-shop/domain/status", nil, owner.Token).JSON["status"], "the owner keeps its claim, and its record verifies it")
	assert.NotEqual(t, "VERIFIED", env.Do("GET", "/v1/stores/thief-shop/domain/status", nil, thief.Token).JSON["status"])
}

// Nor does it verify a squatter's claim: the domain stays PENDING for the
// squatter, and its real owner, whose store it names, takes it over.
func TestDomains_SquatterIsNotVerifiedByAnotherStoresRecord(t *testing.T) {
	env := testenv.New(t)
	sfx := env.Domains.TargetSuffix
	edge := "edge." + sfx
	squatter := bookseller(t, env, "wcs_squatter")
	newStore(t, env, squatter, storeBody("squat2-shop"))
	owner := bookseller(t, env, "wcs_owner")
	newStore(t, env, owner, storeBody("owner2-shop"))
	env.DNS.SetCNAME("owner2-shop."+sfx, edge)
	env.DNS.SetCNAME("squat2-shop."+sfx, edge)
	const domain = "victim.example.com"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/squat2-shop/domain/verify", map[string]any{"domain": domain}, squatter.Token).Status)
	env.DNS.SetCNAME(domain, "owner2-shop."+sfx) // the real owner points it at ITS store
	s := env.Do("GET", "/v1/stores/squat2-shop/domain/status", nil, squatter.Token)
	assert.Equal(t, "PENDING", s.JSON["status"], "the squatter verified a domain that names another store's target")
	assert.Empty(t, env.CDN.Domains(), "nor got the squatter a tenant: no certificate is issued for it")
	res := env.Do("POST", "/v1/stores/owner2-shop/domain/verify", map[string]any{"domain": domain}, owner.Token)
	assert.Equal(t, http.StatusOK, res.Status, "%s", res)
}

// Verify again of the store's own verified domain changes nothing: its
// status and verifiedAt stay, so it never becomes a claim another store
// could take over.
func TestDomains_VerifyAgainKeepsTheVerification(t *testing.T) {
	env := testenv.New(t)
	sfx := env.Domains.TargetSuffix
	holder := bookseller(t, env, "rv_holder")
	held := newStore(t, env, holder, storeBody("rv-held"))
	other := bookseller(t, env, "rv_taker")
	newStore(t, env, other, storeBody("rv-taker"))
	const domain = "rv.example.org"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/rv-held/domain/verify", map[string]any{"domain": domain}, holder.Token).Status)
	env.DNS.SetCNAME(domain, "rv-held."+sfx)
	env.CDN.DeployAll()
	s := env.Do("GET", "/v1/stores/rv-held/domain/status", nil, holder.Token)
	require.NotEqual(t, "PENDING", s.JSON["status"], "%v", s.JSON)
	require.NotNil(t, s.JSON["verifiedAt"])
	firstVerified, statusBefore := s.JSON["verifiedAt"], s.JSON["status"]

	// The owner presses "verify" again on the same domain: PENDING, as
	// the spec's states say, until the next status check.
	res := env.Do("POST", "/v1/stores/rv-held/domain/verify", map[string]any{"domain": domain}, holder.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "PENDING", res.JSON["store"].(map[string]any)["customDomainStatus"])
	assert.Equal(t, 1, env.CDN.Count(), "its tenant stays")
	assert.NotNil(t, env.Item(t, dynamo.StoreDomainClaimKey(domain))["verifiedAt"], "the claim keeps verifiedAt")

	env.DNS.SetCNAME(domain, "rv-taker."+sfx)
	res = env.Do("POST", "/v1/stores/rv-taker/domain/verify", map[string]any{"domain": domain}, other.Token)
	assert.NotEqual(t, http.StatusOK, res.Status, "a domain verified once was taken over: %s", res)
	assert.Equal(t, held["id"], env.Item(t, dynamo.StoreDomainClaimKey(domain))["storeId"])

	env.DNS.SetCNAME(domain, "rv-held."+sfx)
	s = env.Do("GET", "/v1/stores/rv-held/domain/status", nil, holder.Token)
	assert.Equal(t, statusBefore, s.JSON["status"], "the next status check moves it on again")
	assert.Equal(t, firstVerified, s.JSON["verifiedAt"], "verifiedAt is when it was first verified")
}

// DNS that does not answer says nothing of the record: a status check
// then keeps the status (an ACTIVE domain does not flap to PENDING) and
// says to try again; a takeover without an answer proves nothing.
func TestDomains_DNSOutageChangesNothing(t *testing.T) {
	env := testenv.New(t)
	sfx := env.Domains.TargetSuffix
	owner := bookseller(t, env, "dns_owner")
	store := newStore(t, env, owner, storeBody("dns-shop"))
	const domain = "outage.example.com"
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/stores/dns-shop/domain/verify", map[string]any{"domain": domain}, owner.Token).Status)
	env.DNS.SetCNAME(domain, "dns-shop."+sfx)
	env.CDN.DeployAll()
	s := env.Do("GET", "/v1/stores/dns-shop/domain/status", nil, owner.Token)
	require.NotEqual(t, "PENDING", s.JSON["status"], "%v", s.JSON)
	before := s.JSON["status"]

	env.DNS.Fail(errors.New("i/o timeout"))
	s = env.Do("GET", "/v1/stores/dns-shop/domain/status", nil, owner.Token)
	require.Equal(t, http.StatusOK, s.Status, "%s", s)
	assert.Equal(t, before, s.JSON["status"])
	assert.Contains(t, s.JSON["message"], "could not be checked")
	assert.Equal(t, before, env.Item(t, dynamo.StoreKey(store["id"].(string)))["domainStatus"], "nothing written")
	env.DNS.Fail(nil)
	assert.Equal(t, before, env.Do("GET", "/v1/stores/dns-shop/domain/status", nil, owner.Token).JSON["status"])
}

// A deployment without the store-domains distribution (context
// storeDomains=false, or no storefrontOrigin: the stack then sets no
// STORE_DISTRIBUTION_ID) keeps every store route working; custom domains
// alone answer that they are unavailable, and nothing touches a CDN.
func TestDomains_WithoutDistribution(t *testing.T) {
	env := testenv.New(t, testenv.WithEnv(storesapi.EnvDistributionID, ""))
	owner := bookseller(t, env, "domoff_owner")
	newStore(t, env, owner, storeBody("domoff-shop"))

	res := env.Do("POST", "/v1/stores/domoff-shop/domain/verify", map[string]any{"domain": "books.example.com"}, owner.Token)
	require.Equal(t, http.StatusServiceUnavailable, res.Status, "%s", res)
	assert.Equal(t, "SERVICE_UNAVAILABLE", res.JSON["error"].(map[string]any)["code"], "%s", res)
	assert.Contains(t, res.JSON["error"].(map[string]any)["message"], "not configured")

	res = env.Do("GET", "/v1/stores/domoff-shop/domain/status", nil, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "NONE", res.JSON["status"], "no domain: nothing to be unavailable")

	res = env.Do("GET", "/v1/stores/lookup-by-domain?domain=books.example.com", nil, "")
	assert.Equal(t, http.StatusNotFound, res.Status, "%s", res)
	assert.Equal(t, http.StatusOK, env.Do("GET", "/v1/stores/domoff-shop", nil, "").Status)
	assert.Empty(t, env.CDN.Domains(), "no tenant was made")
}
