package openapi

import (
	"fmt"
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
		hReplayed: header("Present when this is the kept answer of an earlier request with the same Idempotency-Key.",
			&openapi3.Schema{Type: types(openapi3.TypeString), Enum: []any{"true"}}),
	}
	out[hRequestID].Value.Required = true
	return out
}

func header(about string, s *openapi3.Schema) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Description: about, Schema: inline(s)}}}
}

func headerRef(name string) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Ref: "#/components/headers/" + name}
}

// errorHeaders are the headers any error answer may carry: an error is
// answered after admission, so the rate-limit and quota headers come
// along; a replayed answer can be an error.
var errorHeaders = []string{hRequestID, hRateLimitLimit, hRateLimitRemaining, hRateLimitReset, hMonthlyLimit, hMonthlyRemaining, hMonthlyReset, hRetryAfter, hReplayed}

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
	s.components[rateLimitedError] = envelopeWith("The envelope of a 429: details is the RateLimitExceeded body.", apperr.CodeRateLimited, rateLimitExceeded)
	s.components[monthlyLimitError] = envelopeWith("The envelope of the monthly limit: details is the MonthlyLimitReached body.", apperr.CodeForbidden, monthlyLimitReached)
	return nil
}

// envelopeWith is the envelope of one code whose details is a component.
func envelopeWith(about string, code apperr.Code, details string) *openapi3.SchemaRef {
	inner := &openapi3.Schema{
		Type:     types(openapi3.TypeObject),
		Required: []string{"details"},
		Properties: openapi3.Schemas{
			"code":    constant(openapi3.TypeString, string(code)),
			"details": openapi3.NewSchemaRef(componentRef(details), nil),
		},
	}
	return inline(closedObject(about, openapi3.Schemas{
		"error": inline(&openapi3.Schema{AllOf: openapi3.SchemaRefs{openapi3.NewSchemaRef(componentRef(errorObject), nil), inline(inner)}}),
	}))
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
		r := errorResponse(status, fmt.Sprintf("%s: code %s.", http.StatusText(status), strings.Join(codes, " or ")),
			openapi3.NewSchemaRef(componentRef(schema), nil))
		if status == http.StatusTooManyRequests {
			r.Value.Headers[hRetryAfter] = headerRef(hRetryAfter)
		}
		out[responseName(status)] = r
	}
	// The two forms exclude each other, so that a monthly-limit body that
	// strays from its stated shape fails rather than passing as a plain
	// 403.
	monthly := object(openapi3.Schemas{"error": object(openapi3.Schemas{"details": object(openapi3.Schemas{
		"error": constant(openapi3.TypeString, "monthly_limit_reached"),
	}, "error")}, "details")}, "error")
	other := inline(&openapi3.Schema{
		Description: "Any other refusal.",
		AllOf:       openapi3.SchemaRefs{openapi3.NewSchemaRef(componentRef(errorBody), nil), inline(&openapi3.Schema{Not: monthly})},
	})
	out[monthlyLimitResponse] = errorResponse(http.StatusForbidden,
		"Forbidden: code FORBIDDEN (Forbidden); when the free tier's monthly limit is reached, details is the MonthlyLimitReached body.",
		inline(&openapi3.Schema{OneOf: openapi3.SchemaRefs{openapi3.NewSchemaRef(componentRef(monthlyLimitError), nil), other}}))
	return out
}

// object is an open object schema with the given properties, the named
// ones required.
func object(props openapi3.Schemas, required ...string) *openapi3.SchemaRef {
	return inline(&openapi3.Schema{Type: types(openapi3.TypeObject), Properties: props, Required: required})
}

// monthlyLimitResponse is the 403 of a route that charges a monthly quota.
const monthlyLimitResponse = "ForbiddenOrMonthlyLimit"

func errorResponse(status int, about string, schema *openapi3.SchemaRef) *openapi3.ResponseRef {
	r := openapi3.NewResponse().WithDescription(about).WithJSONSchemaRef(schema)
	r.Headers = openapi3.Headers{}
	for _, h := range errorHeaders {
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
