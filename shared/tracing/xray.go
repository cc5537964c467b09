package tracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/xray"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// A kept trace goes to X-Ray as segment documents through the
// PutTraceSegments API
// (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html):
// the root span is the trace's segment, named after the function with
// Lambda's origin, and every other span a subsegment sent on its own
// (type "subsegment", its trace id and its parent's id), so that no
// document nears the 64 KB limit however many calls a request makes.
// There is no daemon to send to: Lambda runs one only with its own
// active tracing, which the stack leaves off (tracing.go says why).

// Limits of PutTraceSegments (X-Ray's quotas): a document is at most
// 64 KB; a request is kept well under the API's payload limit.
const (
	maxDocumentBytes = 64 << 10
	maxRequestBytes  = 1 << 20
)

// lambdaOrigin is the origin of a Lambda function's segment: X-Ray's
// service map draws it as one.
const lambdaOrigin = "AWS::Lambda::Function"

// putSegments sends the documents, as few requests as the limits allow.
// A document X-Ray reports unprocessed makes an error naming it.
func putSegments(ctx context.Context, client *xray.Client, docs []string) error {
	var errs []error
	for len(docs) > 0 {
		n, size := 0, 0
		for n < len(docs) && (n == 0 || size+len(docs[n]) <= maxRequestBytes) {
			size += len(docs[n])
			n++
		}
		out, err := client.PutTraceSegments(ctx, &xray.PutTraceSegmentsInput{TraceSegmentDocuments: docs[:n]})
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		for _, u := range out.UnprocessedTraceSegments {
			errs = append(errs, fmt.Errorf("segment %s unprocessed: %s %s", aws.ToString(u.Id), aws.ToString(u.ErrorCode), aws.ToString(u.Message)))
		}
		docs = docs[n:]
	}
	return errors.Join(errs...)
}

// documents are the segment documents of a kept trace: root's segment
// first, then its spans' subsegments. A document over the size limit is
// left out and counted.
func documents(service, requestID string, root sdktrace.ReadOnlySpan, spans []sdktrace.ReadOnlySpan) (docs []string, skipped int) {
	seg := document(root)
	seg.Name, seg.Origin = service, lambdaOrigin
	if requestID != "" {
		if seg.AWS == nil {
			seg.AWS = map[string]any{}
		}
		seg.AWS["request_id"] = requestID
	}
	if seg.Annotations == nil {
		seg.Annotations = map[string]any{"invocation": root.Name()}
	}
	add := func(d segmentDoc) {
		b, err := json.Marshal(d)
		if err != nil || len(b) > maxDocumentBytes {
			skipped++
			return
		}
		docs = append(docs, string(b))
	}
	add(seg)
	for _, s := range spans {
		d := document(s)
		d.Type, d.ParentID = "subsegment", s.Parent().SpanID().String()
		add(d)
	}
	return docs, skipped
}

// lambdaRequestID is the invocation's request id, which joins the
// segment to the function's log lines; "" outside Lambda.
func lambdaRequestID(ctx context.Context) string {
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		return lc.AwsRequestID
	}
	return ""
}

// segmentDoc is an X-Ray segment document: a trace's segment, or a
// subsegment sent on its own (Type, ParentID).
type segmentDoc struct {
	Name        string         `json:"name"`
	ID          string         `json:"id"`
	TraceID     string         `json:"trace_id"`
	ParentID    string         `json:"parent_id,omitempty"`
	Type        string         `json:"type,omitempty"`
	StartTime   float64        `json:"start_time"`
	EndTime     float64        `json:"end_time"`
	Origin      string         `json:"origin,omitempty"`
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

// document maps an ended span to its document: an AWS SDK call becomes
// a subsegment named after its service in the "aws" namespace (X-Ray
// draws it as that service's node) with its operation, region, request
// id and table; the route's span carries the route, status and group as
// annotations.
func document(s sdktrace.ReadOnlySpan) segmentDoc {
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		attrs[kv.Key] = kv.Value
	}
	d := segmentDoc{
		Name:      segmentName(s.Name()),
		ID:        s.SpanContext().SpanID().String(),
		TraceID:   xrayTraceID(s.SpanContext().TraceID()),
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
