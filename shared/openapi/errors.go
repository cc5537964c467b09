package openapi

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/getkin/kin-openapi/openapi3"
)

// Component names of the error shapes. The envelope itself is built from
// httpapi.ErrorBody by reflection (ErrorBody, ErrorObject); the two
// stated special bodies are maps in the code (httpapi's rate limiter,
// quota.Policy.LimitReached), so their schemas are written here and the
// tests check them against what that code writes.
const (
	errorBody           = "ErrorBody"
	errorObject         = "ErrorObject"
	rateLimitExceeded   = "RateLimitExceeded"
	monthlyLimitReached = "MonthlyLimitReached"
	rateLimitedError    = "RateLimitedError"
	monthlyLimitError   = "MonthlyLimitError"
)

// Response headers, as components.
const (
	hRequestID          = "X-Request-Id"
	hRateLimitLimit     = "X-RateLimit-Limit"
	hRateLimitRemaining = "X-RateLimit-Remaining"
	hRateLimitReset     = "X-RateLimit-Reset"
	hMonthlyLimit       = "X-Monthly-Limit"
	hMonthlyRemaining   = "X-Monthly-Remaining"
	hMonthlyReset       = "X-Monthly-Reset"
	hRetryAfter         = "Retry-After"
	hReplayed           = httpapi.ReplayedHeader
	hAllow              = "Allow"
	hLocation           = "Location"
)

// headerComponents are the response headers the router sets; every one is
// optional but X-Request-Id, which the router sets on every answer.
func headerComponents() openapi3.Headers {
	integer := func(about string) *openapi3.HeaderRef {
		return header(about, &openapi3.Schema{Type: types(openapi3.TypeInteger)})
	}
	out := openapi3.Headers{
		hRequestID:          header("The request's id; the log line of the request carries it.", &openapi3.Schema{Type: types(openapi3.TypeString), MinLength: 1}),
		hRateLimitLimit:     integer("The limit of the tightest rate limit this request counted against."),
		hRateLimitRemaining: integer("Requests left in that limit's window."),
		hRateLimitReset:     integer("When that window ends (Unix time, seconds)."),
		hMonthlyLimit:       integer("Free tier: posts (lines and replies) allowed per calendar month (UTC); on POST /v1/reviews, reviews."),
		hMonthlyRemaining:   integer("Free tier: posts left this month (on POST /v1/reviews, reviews), as this request left them."),
		hMonthlyReset:       header("Free tier: when the monthly count resets (RFC 3339).", &openapi3.Schema{Type: types(openapi3.TypeString), Format: "date-time"}),
		hRetryAfter:         integer("Seconds to wait before retrying."),
		hAllow:              header("The methods the path answers, comma-separated.", &openapi3.Schema{Type: types(openapi3.TypeString), MinLength: 1}),
		hReplayed: header("Present when this is the kept answer of an earlier request with the same Idempotency-Key.",
			&openapi3.Schema{Type: types(openapi3.TypeString), Enum: []any{"true"}}),
	}
	out[hRequestID].Value.Required = true
	out[hLocation] = header("Where a redirect sends the browser, or where a job's status is read.", &openapi3.Schema{Type: types(openapi3.TypeString), MinLength: 1})
	out[hAllow].Value.Required = true // the router sets it on every 405
	return out
}

func header(about string, s *openapi3.Schema) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Description: about, Schema: inline(s)}}}
}

func headerRef(name string) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Ref: "#/components/headers/" + name}
}

// errorHeaders are the headers the error answers document, by status
// (0: every one). The rate-limit and quota headers of the request's
// admission, and Idempotent-Replayed, may come along on any error too (the
// overview says so), but each is documented only where it says something
// about the refusal: a generator writes a decoder for every header of every
// status of every operation, and nine headers on each error status made
// the ogen client ten times its size.
var errorHeaders = map[int][]string{
	0:                             {hRequestID},
	http.StatusMethodNotAllowed:   {hAllow},
	http.StatusTooManyRequests:    {hRetryAfter, hRateLimitLimit, hRateLimitRemaining, hRateLimitReset},
	http.StatusServiceUnavailable: {hRetryAfter},
	monthlyStatus:                 {hMonthlyLimit, hMonthlyRemaining, hMonthlyReset},
}

// monthlyStatus keys the headers of the monthly quota's 403 in
// errorHeaders (not an HTTP status).
const monthlyStatus = -http.StatusForbidden

// errorSchemas adds the envelope and the stated special bodies to s.
func errorSchemas(s *schemas) error {
	s.markResponse(reflect.TypeFor[httpapi.ErrorBody]())
	if _, err := s.ref(reflect.TypeFor[httpapi.ErrorBody]()); err != nil {
		return err
	}
	obj, ok := s.components[errorObject]
	if !ok {
		return fmt.Errorf("httpapi.ErrorObject is no longer component %s", errorObject)
	}
	codes, names := errorCodes()
	props := obj.Value.Properties
	for prop, enum := range map[string][]string{"code": codes, "name": names} {
		p, ok := props[prop]
		if !ok {
			return fmt.Errorf("httpapi.ErrorObject has no %q property", prop)
		}
		p.Value.Enum = anys(enum)
	}
	props["details"].Value.Description = "Machine-readable detail: {fields: {name: problem}} on a ValidationError; " +
		"the RateLimitExceeded body on a 429; the MonthlyLimitReached body on a 403 of a monthly quota."
	props["requestId"].Value.Description = "The X-Request-Id of the answer."

	str := func() *openapi3.SchemaRef { return inline(&openapi3.Schema{Type: types(openapi3.TypeString)}) }
	integer := func(about string) *openapi3.SchemaRef {
		return inline(&openapi3.Schema{Type: types(openapi3.TypeInteger), Description: about})
	}
	s.components[rateLimitExceeded] = inline(closedObject("The stated body of a refused request (spec: Errors, body shape 1).", openapi3.Schemas{
		"error":      constant(openapi3.TypeString, "rate_limit_exceeded"),
		"action":     inline(&openapi3.Schema{Type: types(openapi3.TypeString), Enum: anys(rateActions()), Description: "The limit that refused it: request (the tier's rate), password_attempts (attempts with a password for one account) or a per-action limit."}),
		"retryAfter": integer("Milliseconds until the limit's window ends."),
		"limit":      integer("The limit's count per window."),
		"remaining":  constant(openapi3.TypeInteger, 0),
	}))
	s.components[monthlyLimitReached] = inline(closedObject("The stated body of the free tier's monthly limit (spec: Errors, body shape 2).", openapi3.Schemas{
		"error":      constant(openapi3.TypeString, "monthly_limit_reached"),
		"message":    str(),
		"kind":       inline(&openapi3.Schema{Type: types(openapi3.TypeString), Enum: anys([]string{string(quota.Posts), string(quota.Reviews)})}),
		"limit":      integer("Allowed per calendar month (UTC)."),
		"current":    integer("Published this month."),
		"resetsAt":   inline(&openapi3.Schema{Type: types(openapi3.TypeString), Format: "date-time"}),
		"upgradeUrl": str(),
	}))
	s.components[rateLimitedError] = envelopeWith(obj.Value, "The envelope of a 429: details is the RateLimitExceeded body.", apperr.CodeRateLimited, rateLimitExceeded, true)
	s.components[monthlyLimitError] = envelopeWith(obj.Value, "The envelope of a 403 of a route that charges a monthly quota: "+
		"when the free tier's monthly limit is reached, details is the MonthlyLimitReached body; any other refusal has no details.", apperr.CodeForbidden, monthlyLimitReached, false)
	return nil
}

// envelopeWith is the envelope whose details is a component: a closed
// copy of ErrorObject with details narrowed, rather than an allOf or a
// oneOf of envelopes, so that a client generator sees one plain type with
// one details type (ogen cannot tell the variants of a oneOf of two
// envelopes apart, and merges an allOf of closed objects poorly).
func envelopeWith(errObj *openapi3.Schema, about string, code apperr.Code, details string, required bool) *openapi3.SchemaRef {
	inner := *errObj
	inner.Properties = maps.Clone(errObj.Properties)
	inner.Properties["code"] = constant(openapi3.TypeString, string(code))
	inner.Properties["details"] = openapi3.NewSchemaRef(componentRef(details), nil)
	inner.Required = slices.DeleteFunc(slices.Clone(errObj.Required), func(n string) bool { return n == "details" })
	if required {
		inner.Required = append(inner.Required, "details")
	}
	return inline(closedObject(about, openapi3.Schemas{"error": inline(&inner)}))
}

func constant(typ string, v any) *openapi3.SchemaRef {
	return inline(&openapi3.Schema{Type: types(typ), Const: v})
}

// closedObject is an object of exactly props, all required.
func closedObject(about string, props openapi3.Schemas) *openapi3.Schema {
	o := &openapi3.Schema{Type: types(openapi3.TypeObject), Description: about, Properties: props,
		AdditionalProperties: openapi3.AdditionalProperties{Has: new(false)}}
	for name := range props {
		o.Required = append(o.Required, name)
	}
	sort.Strings(o.Required)
	return o
}

// errorCodes lists the codes and names of the one code → status table.
func errorCodes() (codes, names []string) {
	for c := range httpapi.Codes() {
		_, name := httpapi.StatusOf(c)
		codes, names = append(codes, string(c)), append(names, name)
	}
	slices.Sort(codes)
	slices.Sort(names)
	return codes, slices.Compact(names)
}

// rateActions lists the values of RateLimitExceeded.action.
func rateActions() []string {
	out := []string{ratelimit.RequestAction, ratelimit.PasswordAction}
	for a := range ratelimit.Actions {
		out = append(out, a)
	}
	slices.Sort(out[2:])
	return out
}

// errorResponses are the answers of every error status of the code table,
// as response components named after the status (NotFound,
// TooManyRequests, ...), plus the 403 of a monthly quota. Each names the
// codes it carries.
func errorResponses() openapi3.ResponseBodies {
	byStatus := map[int][]string{}
	for c, status := range httpapi.Codes() {
		_, name := httpapi.StatusOf(c)
		byStatus[status] = append(byStatus[status], fmt.Sprintf("%s (%s)", c, name))
	}
	out := openapi3.ResponseBodies{}
	for status, codes := range byStatus {
		slices.Sort(codes)
		schema := errorBody
		if status == http.StatusTooManyRequests {
			schema = rateLimitedError
		}
		about := fmt.Sprintf("%s: code %s.", http.StatusText(status), strings.Join(codes, " or "))
		if why := routerSituations[status]; why != "" {
			about += " " + why
		}
		out[responseName(status)] = errorResponse(status, about,
			openapi3.NewSchemaRef(componentRef(schema), nil))
	}
	out[monthlyLimitResponse] = errorResponse(monthlyStatus,
		"Forbidden: code FORBIDDEN (Forbidden); when the free tier's monthly limit is reached, details is the MonthlyLimitReached body.",
		openapi3.NewSchemaRef(componentRef(monthlyLimitError), nil))
	return out
}

// monthlyLimitResponse is the 403 of a route that charges a monthly quota.
const monthlyLimitResponse = "ForbiddenOrMonthlyLimit"

func errorResponse(status int, about string, schema *openapi3.SchemaRef) *openapi3.ResponseRef {
	r := openapi3.NewResponse().WithDescription(about).WithJSONSchemaRef(schema)
	r.Headers = openapi3.Headers{}
	for _, h := range append(errorHeaders[0], errorHeaders[status]...) {
		r.Headers[h] = headerRef(h)
	}
	return &openapi3.ResponseRef{Value: r}
}

// responseName names the response component of an error status after its
// status text: 404 is NotFound.
func responseName(status int) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(http.StatusText(status))
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
