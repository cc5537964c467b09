// Command relay is the Lambda that hands the outbox's events to their
// consumers: its event source is the table's DynamoDB stream, filtered
// to outbox INSERTs (shared/relay). It is only wiring; the handler lives
// in shared/relay and runs unchanged locally (local/streampoll).
package main

import (
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/relay/registry"
)

func main() { app.StartRelay(registry.Consumers) }
