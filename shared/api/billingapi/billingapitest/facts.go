// Package billingapitest declares what the central tests need about the
// billing group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package billingapitest

import (
	"fmt"
	"io"
	"net/http"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the billing group's steps and its routes' rate-limit actions
// (none: the spec names no action for them).
//
// The reader, still free at the Tidy stage (Gather makes them premium
// behind the API), buys premium: the checkout (twice: the same session),
// a confirm before paying (400), the payment on the provider's hosted
// page (the stand-in's, before the step: its webhook is no call of the
// step's), the confirm (twice), and the cancellation at period end.
func Facts() apitest.Facts {
	var session, url string
	confirm := func(token string) func(c *apitest.Client, s *apitest.State) *apitest.Response {
		return func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": session}, token)
		}
	}
	start := func(c *apitest.Client, s *apitest.State) *apitest.Response {
		res := c.Do("POST", "/v1/billing/premium/checkout", nil, s.Token)
		if id, ok := res.JSON["checkoutSessionId"].(string); ok {
			session, url = id, res.JSON["url"].(string)
		}
		return res
	}
	pay := func(*apitest.State) error {
		res, err := http.Get(url + "?redirect=false")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("billingapitest: paying %s: %s", session, res.Status)
		}
		return nil
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Tidy, Route: "GET /v1/billing/premium", Note: "none yet", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/billing/premium", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/checkout", Want: 201, Do: start},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/checkout", Note: "again: the open session", Want: 201, Do: start},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/confirm", Note: "not paid", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return confirm(s.Token)(c, s)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/confirm", Note: "another's session", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return confirm(s.MigratedToken)(c, s)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/confirm", Note: "paid", Want: 200, Before: pay, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return confirm(s.Token)(c, s)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/confirm", Note: "again", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return confirm(s.Token)(c, s)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/checkout", Note: "premium already", Want: 409, Do: start},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/cancel", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/billing/premium/cancel", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/billing/premium/cancel", Note: "no subscription", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/billing/premium/cancel", nil, s.MigratedToken)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/billing/premium":           nil,
			"POST /v1/billing/premium/checkout": nil,
			"POST /v1/billing/premium/confirm":  nil,
			"POST /v1/billing/premium/cancel":   nil,
		},
	}
}
