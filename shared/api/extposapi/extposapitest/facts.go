// Package extposapitest declares what the central tests need about the
// extpos group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package extposapitest

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// noFollow is c sending requests without following redirects: the
// connect and the callback answer 302, which is what is measured. jar
// is the owner's browser's: connect's binding cookie goes back with the
// callback.
func noFollow(c *apitest.Client, jar http.CookieJar) *apitest.Client {
	hc := *c.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hc.Jar = jar
	n := *c
	n.HTTP = &hc
	return &n
}

// Facts are the extpos group's steps and its routes' rate-limit actions.
// The steps run in the Store stage, on a store the bookseller opens after
// the stores group's steps deleted theirs: connect,
// the stand-in's authorisation (an arrangement: not a route of ours),
// the callback, then syncs.
func Facts() apitest.Facts {
	var location, callback, jobID string
	jar, _ := cookiejar.New(nil) // never fails without options
	return apitest.Facts{
		Steps: []apitest.Step{
			// The inventory group's steps opened the bench's store again
			// (s.StoreID, s.StoreSlug): the bookseller's one store.
			{Stage: apitest.Store, Route: "GET /v1/integrations/extpos/connect", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return noFollow(c, jar).Do("GET", "/v1/integrations/extpos/connect?storeId="+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/integrations/extpos/connect", Want: 302, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := noFollow(c, jar).Do("GET", "/v1/integrations/extpos/connect?storeId="+s.StoreID, nil, s.SellerToken)
				location = res.Header.Get("Location")
				return res
			}},
			{Stage: apitest.Store, Route: "GET /v1/integrations/extpos/callback", Want: 302,
				Before: func(*apitest.State) error {
					// The authorisation page approves at once: its redirect
					// names the callback with the code and the state.
					hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
					res, err := hc.Get(location)
					if err != nil {
						return err
					}
					res.Body.Close()
					u, err := url.Parse(res.Header.Get("Location"))
					if err != nil {
						return err
					}
					callback = u.Path + "?" + u.RawQuery
					return nil
				},
				Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
					return noFollow(c, jar).Do("GET", callback, nil, "")
				}},
			{Stage: apitest.Store, Route: "GET /v1/integrations/extpos/callback", Note: "state reused, its cookie cleared", Want: 302, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return noFollow(c, jar).Do("GET", callback, nil, "")
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory/sync-extpos", Note: "bad mode", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.StoreID, map[string]any{"mode": "sideways"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory/sync-extpos", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.StoreID, map[string]any{"mode": "import"}, s.SellerToken)
				jobID, _ = res.JSON["jobId"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/sync-extpos/{jobId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory/sync-extpos/"+strings.TrimSpace(jobID)+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/integrations/extpos/connect":   nil,
			"GET /v1/integrations/extpos/callback":  nil,
			"POST /v1/inventory/sync-extpos":        nil,
			"GET /v1/inventory/sync-extpos/{jobId}": nil,
		},
	}
}
