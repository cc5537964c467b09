// Package importsapitest declares what the central tests need about the
// imports group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package importsapitest

import (
	"bytes"
	"mime/multipart"
	"net/url"
	"strings"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// SampleCSV is a small import file: a book the catalog lacks, added by
// its title (the catalog importer's writes), and a bad row (a checkpoint
// with its errors).
const SampleCSV = "isbn,quantity,price,condition,location,title,author\r\n" +
	"979-10-90636-07-1,3,12.99,new,Front,Bench Imported Book,Bench Author\r\n" +
	"9780306406158,1,4.00,used_good,,,\r\n"

// Upload is a multipart body with data as its file field.
func Upload(name string, data []byte) (*bytes.Buffer, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", name)
	_, _ = part.Write(data)
	_ = mw.Close()
	return &body, mw.FormDataContentType()
}

// Facts are the imports group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	var jobID string
	upload := func(c *apitest.Client, s *apitest.State, token string) *apitest.Response {
		body, ctype := Upload("stock.csv", []byte(SampleCSV))
		res := c.Raw("POST", "/v1/inventory/bulk-import?storeId="+url.QueryEscape(s.StoreID), ctype, body, token)
		if id, ok := res.JSON["jobId"].(string); ok {
			jobID = id
		}
		return res
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			// The inventory group's steps opened the bench's store again
			// (s.StoreID, s.StoreSlug): the bookseller's one store.
			{Stage: apitest.Store, Route: "POST /v1/inventory/bulk-import", Note: "2 rows, inline", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return upload(c, s, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory/bulk-import", Note: "the same file again", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return upload(c, s, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory/bulk-import", Note: "501 rows, by the worker", Want: 202, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				// Over the inline limit (CSV_IMPORT_INLINE_ROWS, 500): stored,
				// queued and answered with the job. Every row is refused (an
				// unknown condition), so the worker writes no stock.
				body, ctype := Upload("large.csv", []byte("isbn,quantity,price,condition\r\n"+strings.Repeat("9780306406158,1,4.00,mint\r\n", 501)))
				res := c.Raw("POST", "/v1/inventory/bulk-import?storeId="+url.QueryEscape(s.StoreID), ctype, body, s.SellerToken)
				if id, ok := res.JSON["jobId"].(string); ok {
					jobID = id
				}
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory/bulk-import", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return upload(c, s, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/bulk-import/{jobId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory/bulk-import/"+jobID+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/bulk-import/{jobId}", Note: "unknown job", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory/bulk-import/00000000-0000-4000-8000-000000000000?storeId="+s.StoreID, nil, s.SellerToken)
			}},
		},
		// The spec names no action for imports: the tier rate applies.
		Actions: map[string][]string{
			"POST /v1/inventory/bulk-import":        nil,
			"GET /v1/inventory/bulk-import/{jobId}": nil,
		},
	}
}
