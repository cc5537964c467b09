// Package notificationsapitest declares what the central tests need
// about the notifications group (shared/api/apitest): its steps of the
// call benchmark's scenario (local/bench) and the rate-limit actions of
// its routes (shared/groups). Test support: no function links it.
package notificationsapitest

import (
	"net/url"
	"strings"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the notifications group's steps and its routes' rate-limit
// actions.
func Facts() apitest.Facts {
	settings := func(s *apitest.State) string { return "/v1/stores/" + s.StoreSlug + "/notification-settings" }
	unsubscribe := func(s *apitest.State) string {
		return "/v1/notifications/unsubscribe?token=" + url.QueryEscape(s.SignUnsubscribe(s.StoreID))
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			// The bookseller reads its store's email settings, moves its
			// new-order email to a daily digest at a shop address, then
			// follows the digest's unsubscribe link (and a mail client's
			// one-click POST of it).
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/notification-settings", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", settings(s), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/notification-settings", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", settings(s), nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/notification-settings", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", settings(s), map[string]any{"newOrderEmail": "daily", "email": "orders@bench-books.example"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/notification-settings", Note: "a bad value", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", settings(s), map[string]any{"newOrderEmail": "hourly"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/notifications/unsubscribe", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", unsubscribe(s), nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/notifications/unsubscribe", Note: "a forged token", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/notifications/unsubscribe?token=c3RvcmU.AAAA", nil, "")
			}},
			{Stage: apitest.Store, Route: "POST /v1/notifications/unsubscribe", Note: "one-click, already off", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Raw("POST", unsubscribe(s), "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"), "")
			}},
		},
		// The spec names no action for these; the tier rate applies (the
		// IP's for the unsubscribe link, which needs no sign-in).
		Actions: map[string][]string{
			"GET /v1/stores/{slug}/notification-settings": nil,
			"PUT /v1/stores/{slug}/notification-settings": nil,
			"GET /v1/notifications/unsubscribe":           nil,
			"POST /v1/notifications/unsubscribe":          nil,
		},
	}
}
