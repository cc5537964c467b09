package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// runCost runs TestCost (cost_test.go) and copies its report, which ends
// with the line "cost: $X.XX per million requests". It is a test for the
// reason runCalls is: the mix runs through the real router against
// DynamoDB Local, in an environment built on testing.TB.
func runCost(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("cost", flag.ExitOnError)
	rounds := fs.Int("rounds", 3, "times each request of the mix is sent")
	_ = fs.Parse(args)

	section(w, "9. Cost per million requests of the read-heavy mix, from the capacity DynamoDB Local reports for each call, as DynamoDB bills it",
		fmt.Sprintf("go run ./local/bench cost -rounds %d", *rounds))
	progress("cost: go test ./local/bench -run TestCost")
	return runTestFigure(w, testFigure{run: "^TestCost$", outFlag: "cost-out", args: []string{fmt.Sprintf("-cost-rounds=%d", *rounds)}})
}

// Prices, USD, us-east-1, on demand (the public price pages, 2026): what
// the stack's resources bill per request, and the two monthly items a
// request figure leaves out.
const (
	priceHTTPAPIRequest    = 1.00 / 1e6       // HTTP API, first 300 million a month
	priceLambdaInvocation  = 0.20 / 1e6       // per invocation, authorizer included
	priceLambdaARMGBSecond = 0.0000133334     // arm64, per GB-second, billed by the millisecond
	priceDynamoWRU         = 0.625 / 1e6      // on-demand write request unit
	priceDynamoRRU         = 0.125 / 1e6      // on-demand read request unit
	priceLogsIngestedGB    = 0.50 / (1 << 30) // CloudWatch Logs standard ingestion, per byte
	priceLogsIngestedIAGB  = 0.25 / (1 << 30) // the Infrequent Access class's
	priceXRayTrace         = 5.00 / 1e6       // X-Ray trace recorded (PutTraceSegments itself is not billed)
	priceMetricMonth       = 0.30             // CloudWatch custom metric, first 10,000
	functionMemoryGB       = 256.0 / 1024     // the stack's functionMemoryMB
	logEventOverhead       = 26               // bytes CloudWatch Logs counts per event beside its message
	xraySendMs             = 20               // modelled: a kept trace's PutTraceSegments, in-region, waited for by its request
	statusClassesPerRoute  = 3                // 2xx, 4xx, 5xx: the metrics a route can make
)

// costSample is what one request of the mix was measured to need.
type costSample struct {
	route, note string
	status      int
	// rru and wru are the request units DynamoDB bills for the calls of
	// the request (billedCapacity of what each reported, callstats),
	// idxWRU the indexes' share of wru; localIdxWRU is that share as
	// DynamoDB Local reported it.
	rru, wru, idxRRU, idxWRU float64
	localIdxWRU              float64
	calls                    int
	// fnLog are the bytes and events the function logged; platform are
	// Lambda's own START/END/REPORT lines, gateway the API's access line.
	fnLogBytes, fnLogEvents     int
	platformBytes, platformLogs int
	gatewayBytes                int
	// authorizer: whether API Gateway invoked it, and what it logged.
	authorized                  bool
	authLogBytes, authLogEvents int
	fnBilledMs, authBilledMs    float64
}

// costLine is one request of the mix with its weight (its share of all
// requests) and its samples.
type costLine struct {
	class, route, note string
	share              float64
	samples            []costSample
}

// mean is the average of f over the line's samples.
func (l costLine) mean(f func(costSample) float64) float64 {
	if len(l.samples) == 0 {
		return 0
	}
	var sum float64
	for _, s := range l.samples {
		sum += f(s)
	}
	return sum / float64(len(l.samples))
}

// least is the smallest f over the line's samples.
func (l costLine) least(f func(costSample) float64) float64 {
	m := math.Inf(1)
	for _, s := range l.samples {
		m = min(m, f(s))
	}
	if len(l.samples) == 0 {
		return 0
	}
	return m
}

// weightedLeast is the mix-weighted least of f per request: for
// durations, which other work on a shared machine only lengthens.
func weightedLeast(lines []costLine, f func(costSample) float64) float64 {
	return weightedBy(lines, func(l costLine) float64 { return l.least(f) })
}

// weighted is the mix-weighted mean of f per request.
func weighted(lines []costLine, f func(costSample) float64) float64 {
	return weightedBy(lines, func(l costLine) float64 { return l.mean(f) })
}

// weightedBy is the mix-weighted average of a figure of each line.
func weightedBy(lines []costLine, of func(costLine) float64) float64 {
	var sum, shares float64
	for _, l := range lines {
		sum += l.share * of(l)
		shares += l.share
	}
	return sum / shares
}

// logBytes are the bytes CloudWatch Logs ingests for events of n bytes.
func logBytes(bytes, events int) float64 { return float64(bytes + events*logEventOverhead) }

// writeCostReport prints the mix, the per-request components with the
// prices they assume, the monthly items, and the final cost line, and
// returns the cost per million requests.
func writeCostReport(w io.Writer, lines []costLine, rounds int) float64 {
	fmt.Fprintf(w, "   prices, us-east-1 on demand: HTTP API $%.2f/M requests; Lambda $%.2f/M invocations and $%.10f/GB-s arm64 at %.0f MB;\n",
		priceHTTPAPIRequest*1e6, priceLambdaInvocation*1e6, priceLambdaARMGBSecond, functionMemoryGB*1024)
	fmt.Fprintf(w, "   DynamoDB $%.3f/M WRU, $%.3f/M RRU; CloudWatch Logs $%.2f/GB ingested, $%.2f infrequent access (+%d B an event); X-Ray $%.2f/M traces recorded; metrics $%.2f/month each\n",
		priceDynamoWRU*1e6, priceDynamoRRU*1e6, priceLogsIngestedGB*(1<<30), priceLogsIngestedIAGB*(1<<30), logEventOverhead, priceXRayTrace*1e6, priceMetricMonth)
	obs := groups.Observability
	fmt.Fprintf(w, "   deployment: Lambda log format %s, system log level %q; Lambda tracing off, traces kept by the functions: every 5xx, every request from %d ms, %g%% of the rest; %d rounds of the mix\n",
		obs.LogFormat, obs.SystemLogLevel, obs.TraceSlowMS, obs.TraceSampleRate*100, rounds)
	fmt.Fprintf(w, "   %-36s %-16s %6s %6s %6s %6s %5s %5s %6s %6s\n", "route", "case", "share", "status", "RRU", "WRU", "(idx)", "calls", "fnlog", "gwlog")
	class := ""
	for _, l := range lines {
		if l.class != class {
			class = l.class
			fmt.Fprintf(w, "   %s\n", class)
		}
		status := 0
		if len(l.samples) > 0 {
			status = l.samples[0].status
		}
		fmt.Fprintf(w, "   %-36s %-16s %5.1f%% %6d %6.2f %6.2f %5.2f %5.1f %6.0f %6.0f\n", l.route, l.note, l.share, status,
			l.mean(func(s costSample) float64 { return s.rru }), l.mean(func(s costSample) float64 { return s.wru }),
			l.mean(func(s costSample) float64 { return s.idxWRU }), l.mean(func(s costSample) float64 { return float64(s.calls) }),
			l.mean(func(s costSample) float64 { return float64(s.fnLogBytes) }), l.mean(func(s costSample) float64 { return float64(s.gatewayBytes) }))
	}

	rru := weighted(lines, func(s costSample) float64 { return s.rru })
	idxRRU := weighted(lines, func(s costSample) float64 { return s.idxRRU })
	wru := weighted(lines, func(s costSample) float64 { return s.wru })
	idxWRU := weighted(lines, func(s costSample) float64 { return s.idxWRU })
	localIdxWRU := weighted(lines, func(s costSample) float64 { return s.localIdxWRU })
	authorized := weighted(lines, func(s costSample) float64 { return b2f(s.authorized) })
	invocations := 1 + authorized
	fnMs := weightedLeast(lines, func(s costSample) float64 { return s.fnBilledMs })
	authMs := weightedLeast(lines, func(s costSample) float64 { return s.authBilledMs })
	fnLog := weighted(lines, func(s costSample) float64 { return logBytes(s.fnLogBytes, s.fnLogEvents) })
	gwLog := weighted(lines, func(s costSample) float64 { return logBytes(s.gatewayBytes, 1) })
	platformLog := weighted(lines, func(s costSample) float64 { return logBytes(s.platformBytes, s.platformLogs) })
	authLog := weighted(lines, func(s costSample) float64 { return logBytes(s.authLogBytes, s.authLogEvents) })
	// The functions keep a request's trace when it failed or was slow
	// (the least of its rounds, as for durations: other work on this
	// machine only lengthens them), and the sample rate of the others;
	// the authorizer keeps none.
	failedOrSlow := weightedBy(lines, func(l costLine) float64 {
		return b2f(l.least(func(s costSample) float64 { return float64(s.status) }) >= 500 ||
			l.least(func(s costSample) float64 { return s.fnBilledMs }) >= float64(obs.TraceSlowMS))
	})
	traces := failedOrSlow + (1-failedOrSlow)*obs.TraceSampleRate
	sendMs := traces * xraySendMs

	components := []struct {
		name, measure string
		usd           float64
	}{
		{"DynamoDB reads", fmt.Sprintf("%.2f RRU (indexes %.2f)", rru, idxRRU), rru * priceDynamoRRU},
		{"DynamoDB writes", fmt.Sprintf("%.2f WRU (indexes %.2f; as DynamoDB Local reports them %.2f)", wru, idxWRU, localIdxWRU), wru * priceDynamoWRU},
		{"HTTP API", "1 request", priceHTTPAPIRequest},
		{"Lambda requests", fmt.Sprintf("%.2f invocations (authorizer %.2f)", invocations, authorized), invocations * priceLambdaInvocation},
		{"Lambda duration", fmt.Sprintf("%.1f ms function + %.1f ms authorizer billed (least of the rounds) + %.2f ms sending traces", fnMs, authMs, sendMs), (fnMs + authMs + sendMs) / 1000 * functionMemoryGB * priceLambdaARMGBSecond},
		{"CloudWatch Logs", fmt.Sprintf("%.0f B: function %.0f, API access %.0f (%s), platform %.0f, authorizer %.0f", fnLog+gwLog+platformLog+authLog, fnLog, gwLog, strings.ToLower(obs.AccessLogClass), platformLog, authLog),
			(fnLog+platformLog+authLog)*priceLogsIngestedGB + gwLog*gatewayLogPrice(obs.AccessLogClass)},
		{"X-Ray", fmt.Sprintf("%.4f traces (%.0f%% failed or slow, %g%% of the rest)", traces, failedOrSlow*100, obs.TraceSampleRate*100), traces * priceXRayTrace},
	}
	fmt.Fprintf(w, "   per request, mix-weighted:\n")
	var total float64
	for _, c := range components {
		fmt.Fprintf(w, "   %-16s %-66s $%5.2f per million\n", c.name, c.measure, c.usd*1e6)
		total += c.usd
	}

	metrics, fixed := customMetrics()
	fmt.Fprintf(w, "   monthly, not per request: up to %d custom metrics from the access line's metric filters, $%.0f (no X-Ray reservoir: Lambda's tracing is off)\n",
		metrics, fixed)
	perMillion := total * 1e6
	fmt.Fprintf(w, "cost: $%.2f per million requests\n", math.Round(perMillion*100)/100)
	return perMillion
}

// gatewayLogPrice is the ingestion price of a byte of the API's access
// log in its log class.
func gatewayLogPrice(class string) float64 {
	if class == "INFREQUENT_ACCESS" {
		return priceLogsIngestedIAGB
	}
	return priceLogsIngestedGB
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// customMetrics counts the metrics the access line's metric filters can
// make at most (every route and function in every status class; each
// filter makes one metric per combination of its dimensions' values) and
// their monthly price.
func customMetrics() (int, float64) {
	cardinality := map[string]int{httpapi.DimStatusClass: statusClassesPerRoute}
	for _, f := range groups.Functions() {
		if len(f.Routes) > 0 {
			cardinality[httpapi.DimGroup]++
		}
		cardinality[httpapi.DimRoute] += len(f.Routes)
	}
	n := 0
	for _, f := range httpapi.AccessMetricFilters() {
		combos := 1
		for _, d := range f.Dimensions {
			combos *= cardinality[d]
		}
		n += combos
	}
	return n, float64(n) * priceMetricMonth
}

// platformLines are the Lambda platform's own lines of one invocation
// in the text format (START, END and REPORT, without an X-Ray part:
// Lambda's tracing is off), as Lambda writes them; none with the JSON
// format at a system log level above INFO. They are rendered rather than
// guessed so that their size follows the ids and figures they carry.
func platformLines(billedMs float64) (bytes, events int) {
	obs := groups.Observability
	switch {
	case obs.LogFormat == "JSON" && (obs.SystemLogLevel == "WARN" || obs.SystemLogLevel == "ERROR"):
		return 0, 0
	case obs.LogFormat != "Text":
		panic("local/bench: the cost model renders Lambda's platform lines in the Text format or none (JSON at WARN or ERROR); model " +
			obs.LogFormat + " at " + obs.SystemLogLevel)
	}
	const id = "3f1c9a52-6c0e-4d2b-9a8e-5b7d2e4c1a90"
	lines := []string{
		"START RequestId: " + id + " Version: 12",
		"END RequestId: " + id,
		fmt.Sprintf("REPORT RequestId: %s\tDuration: %.2f ms\tBilled Duration: %.0f ms\tMemory Size: %.0f MB\tMax Memory Used: 38 MB\t",
			id, billedMs-0.5, billedMs, functionMemoryGB*1024),
	}
	for _, l := range lines {
		bytes += len(l) + 1
	}
	return bytes, len(lines)
}

// billedCapacity is what DynamoDB bills for calls, from the capacity
// DynamoDB Local reported for each: the same, but for a transaction's
// index writes. Local reports them doubled like the transaction's table
// writes (TestDynamoDBLocal_DoublesTransactionIndexWrites), while
// DynamoDB bills each item of a transaction twice, for its prepare and
// its commit, and the index writes that follow the commit once: its
// changes reach the indexes after the transaction completes, like any
// write's (Amazon DynamoDB Developer Guide, "Amazon DynamoDB
// Transactions: How it works"), and the per-index ConsumedCapacity
// DynamoDB returns for a transactional put of an item in an index is the
// table's 2 and the index's 1 (captures against DynamoDB recorded by the
// nubo-db/dynoxide emulator, src/actions/index_capacity.rs). localIndex
// is the index writes as Local reported them, which the report shows
// beside the billed ones.
func billedCapacity(calls []callstats.Call) (billed callstats.Capacity, localIndexWrite float64) {
	for _, c := range calls {
		cc := c.Capacity
		localIndexWrite += cc.IndexWrite
		if c.Service == "dynamodb" && c.Operation == "TransactWriteItems" {
			cc.IndexWrite /= 2
		}
		billed = billed.Add(cc)
	}
	return billed, localIndexWrite
}

// gatewayLine renders the API's access log line of a request
// (httpapi.GatewayAccessLogFormat) with the values API Gateway would
// write: the request's own method, path, route, status and response
// length, ids of API Gateway's lengths, and a phone browser's user agent.
// A $context variable the model does not know fails the benchmark, so a
// field added to the format is priced, not skipped.
func gatewayLine(method, path, route string, status, responseLength int) (int, error) {
	values := map[string]string{
		"$context.requestId":               "JxYz1AbCdEfGhIj=",
		"$context.integration.requestId":   "3f1c9a52-6c0e-4d2b-9a8e-5b7d2e4c1a90",
		"$context.requestTimeEpoch":        "1795000000000",
		"$context.identity.sourceIp":       "203.0.113.42",
		"$context.identity.userAgent":      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"$context.httpMethod":              method,
		"$context.path":                    path,
		"$context.routeKey":                route,
		"$context.protocol":                "HTTP/1.1",
		"$context.status":                  fmt.Sprint(status),
		"$context.responseLength":          fmt.Sprint(responseLength),
		"$context.responseLatency":         "18",
		"$context.integrationLatency":      "16",
		"$context.integrationErrorMessage": "-",
		"$context.error.message":           "-",
	}
	line := map[string]string{}
	for k, v := range httpapi.GatewayAccessLogFormat {
		val, ok := values[v]
		if !ok {
			return 0, fmt.Errorf("the cost model has no value for %s (field %s of the API's access log): add one to gatewayLine", v, k)
		}
		line[k] = val
	}
	data, err := json.Marshal(line)
	if err != nil {
		return 0, err
	}
	return len(data) + 1, nil
}
