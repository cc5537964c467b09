// Command csvimport is the csv-import worker's Lambda: the consumer of
// the csv-import queue, applying inventory import jobs.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/csvimportapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(csvimportapi.Group) }
