package posapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// lookupFacts are the barcode lookup's steps: the clerk scans the
// scenario's book (its ISBN-13, then its ISBN-10 hyphenated) at the
// bookseller's store, an unknown book, a bad barcode; a reader is
// refused.
func lookupFacts() apitest.Facts {
	// What the steps pass on: the scenario's book's ISBNs, read from the
	// catalog as a clerk's scanner would read them off the cover.
	var isbn13, isbn10 string
	lookup := func(barcode string) string { return "/api/pos/lookup/" + barcode }
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: "GET /v1/books/{id}", Note: "the ISBN to scan", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("GET", "/v1/books/"+s.BookID, nil, "")
				isbn13, _ = res.JSON["isbn13"].(string)
				isbn10, _ = res.JSON["isbn10"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/lookup/{barcode}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", lookup(isbn13)+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			// The store named, as a till's app does once it knows it: the
			// caller's own store by default costs a third round trip (the
			// account, then its store, then the item: docs/decisions.md),
			// beyond the target for an authenticated read.
			{Stage: apitest.Store, Route: "GET /api/pos/lookup/{barcode}", Note: "ISBN-10, hyphenated", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", lookup(hyphenated(isbn10, isbn13))+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/lookup/{barcode}", Note: "no such book", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", lookup("9780000000002"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/lookup/{barcode}", Note: "bad check digit", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", lookup("9780000000003"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/lookup/{barcode}", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", lookup(isbn13)+"?storeId="+s.StoreID, nil, s.Token)
			}},
		},
		// The spec names no action for the point of sale; the tier rate
		// applies.
		Actions: map[string][]string{"GET /api/pos/lookup/{barcode}": nil},
	}
}

// hyphenated is an ISBN-10 as printed on a cover (0-306-40615-2), or the
// ISBN-13 of a book without one.
func hyphenated(isbn10, isbn13 string) string {
	if len(isbn10) != 10 {
		return isbn13
	}
	return isbn10[:1] + "-" + isbn10[1:4] + "-" + isbn10[4:9] + "-" + isbn10[9:]
}
