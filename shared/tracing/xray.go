package tracing

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// exporter sends each span to the X-Ray daemon as a subsegment document:
// one UDP datagram of the daemon's header line and the JSON document
// (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html).
// In Lambda the invocation's segment is the function's, made by the
// Lambda service; the route's span hangs under it (parent_id is the
// header's Parent) and each SDK call's under the route's.
type exporter struct {
	mu   sync.Mutex
	conn net.Conn
}

// daemonHeader leads every datagram.
const daemonHeader = `{"format": "json", "version": 1}` + "\n"

// newExporter dials the daemon: "host:port", or "tcp:host:port
// udp:host:port" as the daemon address may also be given.
func newExporter(addr string) (*exporter, error) {
	for _, part := range strings.Fields(addr) {
		if a, ok := strings.CutPrefix(part, "udp:"); ok {
			addr = a
		}
	}
	addr = strings.TrimPrefix(addr, "udp:")
	conn, err := net.Dial("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial the X-Ray daemon at %s: %w", addr, err)
	}
	return &exporter{conn: conn}, nil
}

// ExportSpans sends the spans. A datagram the daemon does not take is
// lost, never retried: tracing must not slow a request down.
func (e *exporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		doc, err := json.Marshal(subsegment(s))
		if err != nil {
			continue
		}
		_, _ = e.conn.Write(append([]byte(daemonHeader), doc...))
	}
	return nil
}

// Shutdown closes the socket.
func (e *exporter) Shutdown(context.Context) error { return e.conn.Close() }

// segmentDoc is an X-Ray subsegment document, sent on its own.
type segmentDoc struct {
	Name        string         `json:"name"`
	ID          string         `json:"id"`
	TraceID     string         `json:"trace_id"`
	ParentID    string         `json:"parent_id"`
	Type        string         `json:"type"`
	StartTime   float64        `json:"start_time"`
	EndTime     float64        `json:"end_time"`
	Namespace   string         `json:"namespace,omitempty"`
	Error       bool           `json:"error,omitempty"`
	Throttle    bool           `json:"throttle,omitempty"`
	Fault       bool           `json:"fault,omitempty"`
	HTTP        *httpDoc       `json:"http,omitempty"`
	AWS         map[string]any `json:"aws,omitempty"`
	Annotations map[string]any `json:"annotations,omitempty"`
}

type httpDoc struct {
	Response struct {
		Status int `json:"status"`
	} `json:"response"`
}

// subsegment maps an ended span to its document: an AWS SDK call becomes
// a subsegment named after its service in the "aws" namespace (X-Ray
// draws it as that service's node) with its operation, region, request
// id and table; the route's span becomes a subsegment named after the
// route with the route and status as annotations.
func subsegment(s sdktrace.ReadOnlySpan) segmentDoc {
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		attrs[kv.Key] = kv.Value
	}
	d := segmentDoc{
		Name:      segmentName(s.Name()),
		ID:        s.SpanContext().SpanID().String(),
		TraceID:   xrayTraceID(s.SpanContext().TraceID()),
		ParentID:  s.Parent().SpanID().String(),
		Type:      "subsegment",
		StartTime: epochSeconds(s.StartTime()),
		EndTime:   epochSeconds(s.EndTime()),
	}
	status := int(attrs[AttrStatus].AsInt64())
	if status > 0 {
		d.HTTP = &httpDoc{}
		d.HTTP.Response.Status = status
	}
	switch {
	case status == 429:
		d.Error, d.Throttle = true, true
	case status >= 500:
		d.Fault = true
	case status >= 400:
		d.Error = true
	case s.Status().Code == codes.Error:
		d.Fault = true // failed without an answer (a timeout, a reset connection)
	}

	if method := attrs["rpc.method"].AsString(); s.SpanKind() == trace.SpanKindClient && method != "" {
		service, operation, _ := strings.Cut(method, "/")
		d.Name, d.Namespace = segmentName(service), "aws"
		d.AWS = map[string]any{"operation": operation}
		if v := attrs["aws.region"].AsString(); v != "" {
			d.AWS["region"] = v
		}
		if v := attrs["aws.request_id"].AsString(); v != "" {
			d.AWS["request_id"] = v
		}
		if v := attrs["aws.dynamodb.table_names"].AsStringSlice(); len(v) > 0 {
			d.AWS["table_name"] = v[0]
		}
		return d
	}
	if route := attrs[AttrRoute].AsString(); route != "" {
		d.Annotations = map[string]any{"route": route, "status": status}
		if g := attrs[AttrGroup].AsString(); g != "" {
			d.Annotations["group"] = g
		}
	}
	return d
}

// segmentName keeps the characters X-Ray allows in a name (letters,
// digits, white space and _ . : / % & # = + \ - @); a route's braces
// become a colon prefix: "GET /v1/users/{userId}" is
// "GET /v1/users/:userId".
func segmentName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '{':
			b.WriteRune(':')
		case r == '}':
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ',
			strings.ContainsRune("_.:/%&#=+\\-@", r):
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	out := b.String()
	if len(out) > 200 {
		out = out[:200]
	}
	return out
}

func epochSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
