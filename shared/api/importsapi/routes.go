// Package importsapi is the imports endpoint group: a store owner's CSV
// bulk import of inventory (POST /v1/inventory/bulk-import) and its job
// (GET /v1/inventory/bulk-import/{jobId}). The file is kept in the media
// bucket and applied by one code path (shared/api/importjob,
// shared/inventory/csvimport): within the request for a small file, by
// the csv-import worker (shared/api/csvimportapi) on its queue for a
// large one (docs/decisions.md, "Inventory CSV import").
package importsapi

import (
	"net/http"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/importjob"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/queues"
)

// owner: the store's owner, named by the storeId query parameter (the
// spec: store owner only; staff are refused 403).
var owner = httpapi.StoreOwner(httpapi.IDInQuery("storeId"))

// handler serves the imports group.
type handler struct {
	run      *importjob.Runner
	settings importjob.Settings
}

// Group is the imports group. Its calls: PutObject of the file; SendMessage
// to the csv-import queue for a large file (or an inline run that runs out
// of time); PutItem of the job; and for an inline run what the worker
// does: BatchGetItem of the rows' ISBN claims, the catalog importer's
// writes for books added by title (BatchWriteItem, and one more for
// their book.changed events once the books landed), each row's
// StockWriter.Set (GetItem of the item and of a new item's book, a
// TransactWriteItems of PutItem, UpdateItem and ConditionCheckItem parts
// with the inventory.updated event), UpdateItem of the job's checkpoint (a
// TransactWriteItems with the PutItem of its errors when it has any), and
// Query of the job's errors for the answer; the job route GetItem and
// Query.
func Group(d api.Deps) api.Group {
	s := importjob.ReadSettings(d.Env)
	h := &handler{run: importjob.NewRunner(d, s.Limits), settings: s}
	storeID := httpapi.Param{Name: "storeId", Type: "string", Required: true, About: "the store's id: its owner alone may import"}
	return api.Group{
		Name: "imports",
		Table: []string{
			"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
		},
		Media: []string{"s3:PutObject"},
		Sends: []queues.Name{queues.CSVImport},
		Emits: slices.Concat(inventory.Events, books.Events),
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/inventory/bulk-import"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.upload,
				Doc: httpapi.Doc{Summary: "Import the store's inventory from a CSV file: 200 with the final counts for a file of at most 500 data rows (CSV_IMPORT_INLINE_ROWS), applied within the request; 202 with a job to follow at GET /v1/inventory/bulk-import/{jobId} for a larger one (or a run that outlasted the request)",
					Query: []httpapi.Param{storeID}, Multipart: "file", Response: result{}, Also: []int{http.StatusAccepted}, Errors: []int{400},
					Why: map[int]string{
						400: "no file field, no header row, a required column missing or named twice, the file over CSV_IMPORT_MAX_BYTES (5 MiB) or CSV_IMPORT_MAX_ROWS (50,000 data rows); a bad row is no 400 but an element of errors.",
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/inventory/bulk-import/{jobId}"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.job,
				Doc: httpapi.Doc{Summary: "An import job's progress (rows processed of total) and its per-row error report",
					Query: []httpapi.Param{storeID}, Response: result{}, Errors: []int{404},
					Why: map[int]string{404: "no job of this store has this id (jobs are kept 30 days)."}}},
		},
	}
}
