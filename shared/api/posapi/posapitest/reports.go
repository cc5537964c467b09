package posapitest

import (
	"time"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// reportFacts are the summary's and the cash drawer's steps: the
// bookseller opens a shift at its store (after the sales steps: the
// shift starts empty), lists the shifts, reads the day's summary and
// the shift's, and closes the shift with its count.
func reportFacts() apitest.Facts {
	var shiftID string // the shift the steps open and close
	today := func() string { return time.Now().UTC().Format(time.DateOnly) }
	summary := func(s *apitest.State, q string) string {
		return "/api/pos/reports/summary?storeId=" + s.StoreID + q
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: "POST /api/pos/shifts", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Keyed("bench-shift-1").Do("POST", "/api/pos/shifts", map[string]any{"storeId": s.StoreID, "openingFloatCents": 15000,
					"note": "Morning float"}, s.SellerToken)
				shiftID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/shifts", Note: "one open already", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/api/pos/shifts", map[string]any{"storeId": s.StoreID, "openingFloatCents": 0}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/shifts", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/api/pos/shifts?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/reports/summary", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", summary(s, "&startDate="+today()+"&endDate="+today()), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/reports/summary", Note: "partial hours", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				now := time.Now().UTC()
				return c.Do("GET", summary(s, "&startDate="+now.Add(-90*time.Minute).Format(time.RFC3339)+"&endDate="+now.Format(time.RFC3339)), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/reports/summary", Note: "by shift", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", summary(s, "&shiftId="+shiftID), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/reports/summary", Note: "no dates", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", summary(s, ""), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/shifts/{id}/close", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-shift-close-1").Do("POST", "/api/pos/shifts/"+shiftID+"/close", map[string]any{"countedCashCents": 15000,
					"note": "Counted twice"}, s.SellerToken)
			}},
		},
		// The spec names no action for the point of sale; the tier rate
		// applies.
		Actions: map[string][]string{
			"GET /api/pos/reports/summary":    nil,
			"POST /api/pos/shifts":            nil,
			"POST /api/pos/shifts/{id}/close": nil,
			"GET /api/pos/shifts":             nil,
		},
	}
}
