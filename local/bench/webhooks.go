package main

import (
	"flag"
	"io"
	"strconv"
)

// runWebhooks runs TestMeasureDelivery (shared/api/webhookdeliveryapi,
// measure_test.go) and copies its figures into the report: the latency
// from a committed change to the webhook receiver (the relay's stream
// poller, the fan-out, the webhooks queue, the delivery worker, a
// receiver on 127.0.0.1), and the worker's throughput over a backlog.
func runWebhooks(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("webhooks", flag.ExitOnError)
	n := fs.Int("changes", 300, "changes measured one at a time, then the backlog's size")
	_ = fs.Parse(args)

	section(w, "14. Webhooks: latency from a change (an inventory adjustment) to the receiver, and the delivery worker's throughput, DynamoDB Local (in memory), the SQS stand-in",
		"WEBHOOK_MEASURE="+strconv.Itoa(*n)+" go test ./shared/api/webhookdeliveryapi -run TestMeasureDelivery -count=1 -v")
	progress("webhooks: go test ./shared/api/webhookdeliveryapi -run TestMeasureDelivery (%d changes)", *n)
	return runTestFigure(w, testFigure{pkg: "./shared/api/webhookdeliveryapi", run: "^TestMeasureDelivery$", env: "WEBHOOK_MEASURE",
		envValue: strconv.Itoa(*n), timeout: "20m", outFlag: "webhooks-out"})
}
