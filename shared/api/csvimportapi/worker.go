// Package csvimportapi is the csv-import worker group: no routes, the
// consumer of queues.CSVImport. Each message applies one stretch of an
// inventory import job (shared/api/importjob: the same code path the
// upload's inline run takes) and sends the next stretch's message while
// rows remain, so a file of any size is applied in invocations of
// bounded time, each resuming at the job's checkpoint.
package csvimportapi

import (
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/importjob"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/bookplatform/backend/shared/queues"
)

// Group is the csv-import worker. Its calls: GetItem of the job; GetObject
// of its file; BatchGetItem of the rows' ISBN claims; the catalog
// importer's writes for books added by title (BatchWriteItem, their
// book.changed events after them); each row's StockWriter.Set (as the imports group's inline run; a Query of the
// item's history's newest entry before each creation); UpdateItem of the checkpoint (a TransactWriteItems
// with the PutItem of its errors when it has any), of the handoff and of
// a failed job; SendMessage of the next stretch. The file was checked
// against the limits at upload: it is read without them.
func Group(d api.Deps) api.Group {
	run := importjob.NewRunner(d, csvimport.Limits{})
	return api.Group{
		Name: "csvimport",
		Table: []string{
			"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
		},
		Media: []string{"s3:GetObject"},
		Sends: []queues.Name{queues.CSVImport},
		Emits: slices.Concat(inventory.Events, books.Events),
		// One message at a time: a stretch uses the invocation's time.
		Worker: &api.Worker{Queue: queues.CSVImport, BatchSize: 1, Handle: run.Handle},
	}
}
