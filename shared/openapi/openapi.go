// Package openapi builds the API reference, an OpenAPI 3.1 document, from
// the route tables (shared/api groups) and the Go types of the request and
// response bodies, and checks answers against it (Validator) so that the
// handler tests are contract tests.
//
// What the document says of a route comes from its table entry: method,
// path and path parameters, auth level (security), role (x-role, with
// the 403 and 404 its check answers), rate-limit actions
// (x-rate-limit-actions, with their limits), Idempotent (the
// Idempotency-Key header); and from its httpapi.Doc: summary, query
// parameters, request body, success status and body, the error statuses
// its handler answers. The statuses the router itself answers are added
// here: 400 (malformed query string) everywhere; 400, 413 and 415 with a
// JSON body; 401 on token routes; 429 on metered routes and routes with
// actions; 409 and 422 on Idempotent routes; 500 and 503 (contention,
// a dependency down, the request's deadline) everywhere. Every error answer is the one envelope (httpapi.ErrorBody);
// a 429 carries the stated rate-limit body in its details, and the 403 of
// a route that charges a monthly quota may carry the stated monthly-limit
// body.
//
// Schemas are read from Go types as encoding/json writes them (see
// schemas). A body value whose type has a MediaType() string method is
// not JSON: it is documented as that media type, without a schema (the
// docs group's page and script).
//
// The package links kin-openapi: only tests and the generator
// (cmd/openapi) import it; the Lambdas serve the generated document.
package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/getkin/kin-openapi/openapi3"
)

// Version is the OpenAPI version of the document.
const Version = "3.1.0"

// bearerAuth is the security scheme of the access token.
const bearerAuth = "bearerAuth"

// Document builds the API reference of groups and checks it: the
// document is written as JSON and read back, so what is returned, its
// references resolved, is exactly what JSON writes, and it is valid
// OpenAPI 3.1 (kin-openapi's Validate).
func Document(groups []api.Group) (*openapi3.T, error) {
	data, err := JSON(groups)
	if err != nil {
		return nil, err
	}
	return Load(data)
}

// JSON writes the API reference of groups, indented, as served at
// GET /openapi.json. The output is stable: the same groups give the same
// bytes.
func JSON(groups []api.Group) ([]byte, error) {
	doc, err := build(groups)
	if err != nil {
		return nil, err
	}
	// Each example is written on one line: indented, the recorded bodies
	// would grow the document by half again (docs/decisions.md, "API
	// reference examples"). Each is swapped for a placeholder string, and
	// the placeholder for the example's compact JSON after indenting.
	compact, err := placeholdExamples(doc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // descriptions are Markdown: keep < and > readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: write document: %w", err)
	}
	out := buf.Bytes()
	for placeholder, example := range compact {
		quoted, _ := json.Marshal(placeholder)
		out = bytes.Replace(out, quoted, example, 1)
	}
	return out, nil
}

// Load reads a document and validates it as OpenAPI 3.1.
func Load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: read document: %w", err)
	}
	// The recorded examples are not checked here: one that a schema
	// change left behind must not stop the document from being built
	// (every handler test validates against it); TestExamples_valid
	// checks them, and `make examples` records them again.
	if err := doc.Validate(loader.Context, openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	return doc, nil
}

// build assembles the document.
func build(groups []api.Group) (*openapi3.T, error) {
	doc, _, err := buildWith(groups)
	return doc, err
}

// buildWith is build, returning the schemas too (their tests).
func buildWith(groups []api.Group) (*openapi3.T, *schemas, error) {
	if _, err := operationIDs(); err != nil {
		return nil, nil, fmt.Errorf("openapi: %w", err)
	}
	s := newSchemas()
	// Every response type is marked before any schema is built: whether a
	// type is a response type decides its schema (see schemas).
	for _, g := range groups {
		for _, r := range g.Routes {
			if r.Doc.Response != nil {
				s.markResponse(reflect.TypeOf(r.Doc.Response))
			}
		}
	}
	markEvents(s, groups)
	if err := errorSchemas(s); err != nil {
		return nil, nil, fmt.Errorf("openapi: error envelope: %w", err)
	}
	doc := &openapi3.T{
		OpenAPI: Version,
		Info: &openapi3.Info{
			Title:       "Book platform API",
			Version:     "1",
			Description: overview(),
			Contact:     &openapi3.Contact{Name: "Book platform backend team", URL: "https://github.com/bookplatform/backend/issues"},
			License:     &openapi3.License{Name: "Proprietary: for the book platform's own clients", URL: "https://github.com/bookplatform/backend"},
		},
		Servers: servers(),
		Paths:   openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: s.components,
			SecuritySchemes: openapi3.SecuritySchemes{bearerAuth: &openapi3.SecuritySchemeRef{
				Value: openapi3.NewJWTSecurityScheme().WithDescription("The access token of POST /v1/auth/login, /signup, /guest or /refresh, as `Authorization: Bearer <token>`."),
			}},
			Headers:   headerComponents(),
			Responses: errorResponses(),
		},
	}
	ids := map[string]string{}
	for _, g := range groups {
		doc.Tags = append(doc.Tags, &openapi3.Tag{Name: g.Name, Description: tagDescriptions[g.Name]})
		for _, r := range g.Routes {
			op, err := operation(s, g.Name, r)
			if err != nil {
				return nil, nil, fmt.Errorf("openapi: %s %s: %w", r.Method, r.Path, err)
			}
			if other, dup := ids[op.OperationID]; dup {
				return nil, nil, fmt.Errorf("openapi: %s %s and %s have one operationId %q", r.Method, r.Path, other, op.OperationID)
			}
			ids[op.OperationID] = r.Method + " " + r.Path
			item := doc.Paths.Value(r.Path)
			if item == nil {
				item = &openapi3.PathItem{}
				doc.Paths.Set(r.Path, item)
			}
			if item.GetOperation(r.Method) != nil {
				return nil, nil, fmt.Errorf("openapi: %s %s is in the route tables twice", r.Method, r.Path)
			}
			item.SetOperation(r.Method, op)
		}
	}
	hooks, err := webhooks(s, groups)
	if err != nil {
		return nil, nil, fmt.Errorf("openapi: webhooks: %w", err)
	}
	doc.Webhooks = hooks
	pruneResponses(doc)
	ex, err := RecordedExamples()
	if err != nil {
		return nil, nil, err
	}
	addExamples(doc, ex)
	return doc, s, nil
}

// pruneResponses drops the error response components no operation
// refers to (402 and 408 are in the code table, but no route answers
// them: 408 is the local server's, before any route): a component nobody
// uses is noise to a reader and a linter. 404 and 405 stay, the router's
// own answers to any path.
func pruneResponses(doc *openapi3.T) {
	used := map[string]bool{responseName(http.StatusNotFound): true, responseName(http.StatusMethodNotAllowed): true}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				used[strings.TrimPrefix(r.Ref, "#/components/responses/")] = true
			}
		}
	}
	for name := range doc.Components.Responses {
		if !used[name] {
			delete(doc.Components.Responses, name)
		}
	}
}

// mediaTyped is a body that is not JSON (see the package comment).
type mediaTyped interface{ MediaType() string }

// operation documents one route.
func operation(s *schemas, group string, r httpapi.Route) (*openapi3.Operation, error) {
	if r.Doc.Summary == "" {
		// The reference lists operations by summary; an empty one is a
		// route nobody described.
		return nil, fmt.Errorf("no Doc.Summary")
	}
	op := &openapi3.Operation{
		OperationID: operationID(r.Method, r.Path),
		Summary:     r.Doc.Summary,
		Description: describe(r),
		Tags:        []string{group},
		Responses:   openapi3.NewResponses(),
	}
	switch r.Auth {
	case httpapi.AuthBearer:
		op.Security = &openapi3.SecurityRequirements{{bearerAuth: []string{}}}
	case httpapi.AuthOptional:
		op.Security = &openapi3.SecurityRequirements{{}, {bearerAuth: []string{}}}
	default:
		// Said explicitly: none, rather than left to a top-level default.
		op.Security = &openapi3.SecurityRequirements{}
	}
	if len(r.Actions) > 0 {
		var limits []map[string]any
		for _, a := range r.Actions {
			rule, ok := ratelimit.Actions[a]
			if !ok {
				return nil, fmt.Errorf("unknown rate-limit action %q", a)
			}
			limits = append(limits, map[string]any{"action": a, "limit": rule.Limit, "windowSeconds": int64(rule.Window / time.Second)})
		}
		op.Extensions = map[string]any{"x-rate-limit-actions": limits}
	}
	if r.Role.Need != httpapi.NeedNone {
		role := map[string]any{"need": r.Role.Need.String()}
		if ref := r.Role.Store; ref != (httpapi.StoreRef{}) {
			role["store"] = map[string]any{"in": string(ref.In), "name": ref.Name, "by": string(ref.By)}
		}
		if op.Extensions == nil {
			op.Extensions = map[string]any{}
		}
		op.Extensions["x-role"] = role
	}
	if err := parameters(op, r); err != nil {
		return nil, err
	}
	if err := requestBody(s, op, r); err != nil {
		return nil, err
	}
	if err := responses(s, op, r); err != nil {
		return nil, err
	}
	return op, nil
}

// parameters documents the path parameters, the query parameters and the
// Idempotency-Key header.
func parameters(op *openapi3.Operation, r httpapi.Route) error {
	seen := map[string]bool{}
	for _, seg := range strings.Split(r.Path, "/") {
		if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			name := seg[1 : len(seg)-1]
			if seen[name] {
				return fmt.Errorf("path parameter %q twice", name)
			}
			seen[name] = true
			schema := &openapi3.Schema{Type: types(openapi3.TypeString)}
			if pathIsUUID(name) {
				schema.Format = "uuid"
			}
			op.AddParameter(openapi3.NewPathParameter(name).WithSchema(schema))
		}
	}
	for _, q := range r.Doc.Query {
		if !slices.Contains([]string{openapi3.TypeString, openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean}, q.Type) {
			return fmt.Errorf("query parameter %q: type %q is not string, integer, number or boolean", q.Name, q.Type)
		}
		if seen["?"+q.Name] {
			return fmt.Errorf("query parameter %q twice", q.Name)
		}
		seen["?"+q.Name] = true
		schema := &openapi3.Schema{Type: types(q.Type), Enum: anys(q.Enum), Min: q.Minimum, Max: q.Maximum, Default: q.Default}
		switch {
		case q.Type == openapi3.TypeNumber:
			schema.Format = "double"
		case q.Type == openapi3.TypeString && strings.HasSuffix(q.Name, "Id") && !q.NotUUID:
			schema.Format = "uuid"
		}
		op.AddParameter(openapi3.NewQueryParameter(q.Name).WithRequired(q.Required).WithDescription(q.About).WithSchema(schema))
	}
	if r.Idempotent {
		op.AddParameter(openapi3.NewHeaderParameter(httpapi.IdempotencyHeader).
			WithDescription("A client-chosen key (1-255 printable ASCII characters): a retry with the same key and body gets the first answer, marked Idempotent-Replayed; kept 24 hours, per account (without one, per client address).").
			WithSchema(&openapi3.Schema{Type: types(openapi3.TypeString), MinLength: 1, MaxLength: new(uint64(255))}))
	}
	return nil
}

// pathIsUUID reports whether a path parameter holds a UUID: an {id} or
// {...Id} does (users, books, lines, reviews, notes, wishlists, clubs,
// challenges and stores carry UUIDs, shared/ids; a wishlist item and a
// club book are named by their book's id, a member by the user's), but
// a reply's id orders replies by time (lines.NewReplyID).
func pathIsUUID(name string) bool {
	return (name == "id" || strings.HasSuffix(name, "Id")) && name != "replyId"
}

// requestBody documents a JSON or multipart body.
func requestBody(s *schemas, op *openapi3.Operation, r httpapi.Route) error {
	switch {
	case r.Doc.Body != nil && r.Doc.Multipart != "":
		return fmt.Errorf("both a JSON and a multipart body")
	case r.Doc.Body != nil:
		schema, err := s.ref(reflect.TypeOf(r.Doc.Body))
		if err != nil {
			return err
		}
		// A JSON body is required unless the route lets it be left out.
		op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().
			WithRequired(!r.Doc.OptionalBody).WithJSONSchemaRef(schema)}
	case r.Doc.Multipart != "":
		file := &openapi3.Schema{Type: types(openapi3.TypeString), Format: "binary", ContentMediaType: "application/octet-stream"}
		form := &openapi3.Schema{Type: types(openapi3.TypeObject), Required: []string{r.Doc.Multipart},
			Properties: openapi3.Schemas{r.Doc.Multipart: inline(file)}}
		op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithFormDataSchema(form)}
	}
	return nil
}

// responses documents the success answer and every error status.
func responses(s *schemas, op *openapi3.Operation, r httpapi.Route) error {
	status := r.Doc.Status
	if status == 0 {
		status = http.StatusOK
	}
	// A redirect (302) is a success too: the routes a browser follows
	// (an OAuth connect and its callback) answer with Location.
	if (status < 200 || status > 299) && status != http.StatusFound {
		return fmt.Errorf("success status %d is not 2xx or 302", status)
	}
	ok := openapi3.NewResponse().WithDescription(http.StatusText(status))
	ok.Headers = openapi3.Headers{hRequestID: headerRef(hRequestID)}
	if status == http.StatusFound {
		ok.Headers[hLocation] = headerRef(hLocation)
	}
	if metered(r) {
		for _, h := range []string{hRateLimitLimit, hRateLimitRemaining, hRateLimitReset} {
			ok.Headers[h] = headerRef(h)
		}
	}
	if r.Auth != httpapi.AuthNone {
		for _, h := range []string{hMonthlyLimit, hMonthlyRemaining, hMonthlyReset} {
			ok.Headers[h] = headerRef(h)
		}
	}
	if r.Idempotent {
		ok.Headers[hReplayed] = headerRef(hReplayed)
	}
	switch body := r.Doc.Response.(type) {
	case nil:
	case mediaTyped:
		mt := openapi3.NewMediaType()
		if strings.HasPrefix(body.MediaType(), "text/plain") {
			// Plain text (a receipt) is a string, so a client reads it
			// as one and its example is checked as one. (A page or a
			// script stays without a schema: no client decodes it.)
			mt = mt.WithSchema(openapi3.NewStringSchema())
		}
		ok.Content = openapi3.Content{body.MediaType(): mt}
	default:
		schema, err := s.ref(reflect.TypeOf(body))
		if err != nil {
			return err
		}
		ok.WithJSONSchemaRef(schema)
	}
	op.Responses.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: ok})
	for _, also := range r.Doc.Also {
		if also < 200 || also > 299 {
			return fmt.Errorf("success status %d is not 2xx", also)
		}
		op.Responses.Set(strconv.Itoa(also), &openapi3.ResponseRef{Value: ok})
	}

	for _, code := range errorStatuses(r) {
		name := responseName(code)
		if code == http.StatusForbidden && r.Quota != "" {
			name = monthlyLimitResponse
		}
		if name == "" || code < 400 {
			return fmt.Errorf("error status %d is not an HTTP error status", code)
		}
		op.Responses.Set(strconv.Itoa(code), &openapi3.ResponseRef{Ref: "#/components/responses/" + name})
	}
	return nil
}

// errorStatuses are the route's error statuses: its handler's and the
// router's (see the package comment), in ascending order. 405 is the
// path's answer to a method it has no operation for (HEAD of a path
// without GET, say), listed on each operation of the path so that a
// client generator knows its body; 431 a request line or header block
// over the limit, whatever the route.
func errorStatuses(r httpapi.Route) []int {
	out := append([]int{http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusRequestHeaderFieldsTooLarge,
		http.StatusInternalServerError, http.StatusServiceUnavailable}, r.Doc.Errors...)
	if r.Doc.Body != nil || r.Doc.Multipart != "" {
		out = append(out, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	if r.Auth != httpapi.AuthNone {
		// 403: the token's account is suspended (the router refuses it
		// on every route).
		out = append(out, http.StatusUnauthorized, http.StatusForbidden)
	}
	switch r.Role.Need {
	case httpapi.NeedBookstoreTier:
		out = append(out, http.StatusForbidden)
	case httpapi.NeedStoreOwner, httpapi.NeedStoreStaff, httpapi.NeedAnyStaff:
		out = append(out, http.StatusForbidden, http.StatusNotFound)
	}
	if metered(r) {
		out = append(out, http.StatusTooManyRequests)
	}
	if r.Idempotent {
		out = append(out, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// metered reports whether the router counts the route against any rate
// limit (and so may answer 429 and sets the X-RateLimit headers).
func metered(r httpapi.Route) bool { return !r.Unmetered || len(r.Actions) > 0 }

// derivedOperationID derives a unique id from the method and the path
// without its version segment: GET /v1/users/username/{username} is
// getUsersUsernameByUsername. Only a route not yet in operationids.txt
// has one.
func derivedOperationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(strings.TrimPrefix(path, httpapi.V1("")), "/") {
		if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			b.WriteString("By")
			seg = seg[1 : len(seg)-1]
		}
		for word := range strings.FieldsFuncSeq(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
			b.WriteString(exported(word))
		}
	}
	return b.String()
}

// describe says in prose what the security and extension fields say, for
// readers of the rendered page.
func describe(r httpapi.Route) string {
	var parts []string
	switch r.Auth {
	case httpapi.AuthBearer:
		parts = append(parts, "Requires a bearer token.")
	case httpapi.AuthOptional:
		parts = append(parts, "A bearer token is optional; with one, the answer is the caller's view.")
	}
	if r.Role.Need != httpapi.NeedNone {
		parts = append(parts, roleSentence(r.Role))
	}
	if len(r.Actions) > 0 {
		var limits []string
		for _, a := range r.Actions {
			rule := ratelimit.Actions[a]
			limits = append(limits, fmt.Sprintf("`%s` (%d per %s)", a, rule.Limit, window(rule.Window)))
		}
		parts = append(parts, "Counts against "+strings.Join(limits, " and ")+".")
	}
	if !metered(r) {
		parts = append(parts, "Not rate limited.")
	}
	if r.Idempotent {
		parts = append(parts, "Honours `Idempotency-Key`.")
	}
	if r.Method == http.MethodGet {
		parts = append(parts, "Also answers HEAD: the same status and headers, without the body.")
	}
	if len(parts) == 0 {
		parts = append(parts, "No token needed.")
	}
	text := strings.Join(parts, " ")
	if why := situations(r); len(why) > 0 {
		text += "\n\n**Statuses**\n\n" + strings.Join(why, "\n")
	}
	return text
}

// situations says, per error status of the route, which situation gives
// it where that is the route's own: its Doc.Why, its role's and quota's
// 403, the 409 and 422 of Idempotency-Key. A Why for the 409 or 422 of
// an idempotent route follows the key's situation ("...; or <why>"): the
// key's is true on every such route; a Why for a role's or quota's 403
// or 404 replaces the route's, so it says the role or the limit itself.
// What gives the router's other statuses (400, 401, 405, 413,
// 415, 429, 431, 500, 503) is the same on every route: their response
// components say it, once.
func situations(r httpapi.Route) []string {
	var out []string
	for _, code := range errorStatuses(r) {
		why, base := r.Doc.Why[code], routeSituation(r, code)
		switch {
		case base != "" && why != "" && r.Idempotent && (code == http.StatusConflict || code == http.StatusUnprocessableEntity):
			why = base + "; or " + why
		case why == "" && base != "":
			why = base + handlerToo(r, code)
		}
		if why != "" {
			out = append(out, fmt.Sprintf("- %d: %s", code, why))
		}
	}
	return out
}

// routeSituation is what gives code on route r when it depends on the
// route's table entry, without its ending; "" otherwise.
func routeSituation(r httpapi.Route, code int) string {
	switch {
	case code == http.StatusConflict && r.Idempotent:
		return "a request with the same `Idempotency-Key` is still being processed (retry after `Retry-After`)"
	case code == http.StatusUnprocessableEntity && r.Idempotent:
		return "the `Idempotency-Key` was used with another request"
	case code == http.StatusForbidden && r.Quota != "":
		return "the free tier's monthly limit is reached (`details` is the MonthlyLimitReached body)"
	case code == http.StatusForbidden && r.Role.Need != httpapi.NeedNone:
		return "the caller lacks the route's role (see Role above)"
	case code == http.StatusNotFound && r.Role.Store != (httpapi.StoreRef{}):
		return "no such store"
	case code == http.StatusForbidden && r.Auth != httpapi.AuthNone:
		return "the token's account is suspended"
	}
	return ""
}

// routerSituations say what gives each status the router answers, in
// the response components.
var routerSituations = map[int]string{
	http.StatusBadRequest:                  "A malformed query string or a parameter out of its bounds; a body that is not one JSON object (empty, not UTF-8, a key twice) or whose fields fail validation (VALIDATION_ERROR, details.fields); or the handler's refusal (the message says why).",
	http.StatusUnauthorized:                "No bearer token where one is required, or one that is not valid or has expired (where a token is optional, only a token that is sent and not valid); on sign-in, wrong credentials.",
	http.StatusMethodNotAllowed:            "A method the path has no operation for; Allow lists the ones it has.",
	http.StatusRequestEntityTooLarge:       "A body over the limit (1 MiB for JSON; an upload has its own).",
	http.StatusUnsupportedMediaType:        "A Content-Type other than the operation's (JSON, or multipart/form-data for an upload).",
	http.StatusTooManyRequests:             "A rate limit refused the request: Retry-After and the X-RateLimit-* headers describe that limit, details is the RateLimitExceeded body.",
	http.StatusRequestHeaderFieldsTooLarge: "A request line or header block over 10,240 bytes.",
	http.StatusInternalServerError:         "A fault of the service; the log line with the answer's X-Request-Id says which.",
	http.StatusServiceUnavailable:          "Contention on the data, a dependency down, or the request's deadline; retry after Retry-After.",
}

// handlerToo ends a router situation: "." when only the router answers
// the status, or a note that the handler does too.
func handlerToo(r httpapi.Route, code int) string {
	if slices.Contains(r.Doc.Errors, code) {
		return "; or the handler's own refusal (see the code)."
	}
	return "."
}

// roleSentence says a route's role in prose, as x-role says it in data.
func roleSentence(role httpapi.Role) string {
	if role.Need == httpapi.NeedBookstoreTier {
		return "Role: **bookstore tier** (403 for other tiers)."
	}
	ref := role.Store
	where := map[httpapi.Source]string{httpapi.InPath: "path parameter", httpapi.InQuery: "query parameter", httpapi.InBody: "body field"}[ref.In]
	return fmt.Sprintf("Role: **%s** of the store whose %s is in the %s `%s` (403 for anyone else, 404 for an unknown store).",
		role.Need, ref.By, where, ref.Name)
}

// window writes a rate-limit window as the spec does: "minute", "hour".
func window(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "minute"
	case d == time.Hour:
		return "hour"
	case d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// servers are the local run and production. Every path carries its
// version (/v1), so the production base is the API's domain alone.
func servers() openapi3.Servers {
	return openapi3.Servers{
		{URL: "http://127.0.0.1:8080", Description: "The local run (`make run`), demo data loaded."},
		{URL: "https://{apiDomain}", Description: "Production: the API's domain (the stack's apiDomainName, or its HTTP API's execute-api address); the paths carry `/v1`, so a call is `https://{apiDomain}/v1/...`.",
			Variables: map[string]*openapi3.ServerVariable{"apiDomain": {Default: "api.bookplatform.app", Description: "The API's domain name."}}},
	}
}

// tagDescriptions describe the groups, one tag each.
var tagDescriptions = map[string]string{
	"health":     "Whether the service runs; no token, not rate limited.",
	"auth":       "Accounts and sessions: guests, sign-up, sign-in, token refresh, logout. Tokens come in both of the spec's forms (`token`/`access_token`, `refreshToken`/`refresh_token`).",
	"users":      "The caller's own profile, password, avatar and home store, and readers' public profiles.",
	"books":      "The catalog: search by title, author or ISBN, and one book by id or ISBN.",
	"lines":      "Lines: short posts about a book (a quote, a thought), with replies and likes; in a club or a challenge too.",
	"reviews":    "Reviews: a rating (1-5) and text per reader and book, with likes; a book's reviews carry its rating statistics.",
	"clubs":      "Reading clubs: a directory, membership with roles (host, moderator, member), a reading list and the club's lines.",
	"challenges": "Reading challenges: a goal of books in a period, participants and their progress.",
	"wishlists":  "Wishlists of books, private or public, with priorities and notes.",
	"follows":    "Following readers and stores, and the lists of who follows whom.",
	"notes":      "Private notes on books, seen by their author alone.",
	"reports":    "Reports of lines, replies, reviews and clubs to moderation.",
	"stores":     "Bookstores: profiles, staff, branding images, custom domains and the stores near a position.",
	"inventory":  "Stores' stock, for their owner and staff: one item per book, its quantity changes and their history, search within the store; and where a book is in stock.",
	"imports":    "CSV bulk import of a store's inventory: a small file applied at once, a larger one by a job whose progress and per-row errors can be read.",
	"csvimport":  "The csv-import worker (no routes): it applies the rows of large inventory imports and emits their events.",
	"extpos":     "The store's external point-of-sale system (Square-compatible): connecting it with OAuth, and syncing the store's inventory with it (import, export, two-way) through the pos-sync worker.",
	"possync":    "The pos-sync queue's worker: no route.",
	"orders":     "Readers' orders of books from one or several stores, each store's part shipped or picked up: placing one (paid through the payment provider: authorised at once, captured on confirmation), the caller's orders, cancelling one (stock back, payment voided or refunded) and confirming a web checkout session.",
	"payments":   "The payment provider's signed webhook, which confirms or cancels the order of a payment completed, failed or canceled on the web, and completes or ends premium subscriptions.",
	"billing":    "Premium bought as a monthly subscription on the payment provider's hosted checkout: start a checkout (free accounts), confirm it once paid (or let the provider's webhook do it), read the subscription, cancel it at the end of the paid period (then the account is free again).",
	"earnings":   "What a store earns, for its owner: affiliate commissions on the orders attributed to it, its shares of the monthly pool, pending and paid.",
	"pos":        "The in-store point of sale (/api/pos, unversioned as the spec places it), for a store's staff and owner: ringing up sales, looking books up by barcode, 48-column receipts, the period summary and the cash drawer's shifts.",
	"docs":       "This reference: the OpenAPI document and the page that renders it.",

	"webhookdelivery": "The webhooks queue's worker (no routes): one signed attempt of a delivery to a store's endpoint per message, with its retries.",
	"tradecredit":     "Trade credit a store gives a customer (for books traded in): staff grant and correct it with a reason and read a customer's balance and ledger; customers read their balances at every store. A point-of-sale sale spends it. The balance never goes below zero.",
	"webhooks":        "A store's webhook endpoints, for its owner: the URLs its events (orders, inventory, new followers) are delivered to, signed per Standard Webhooks with each endpoint's secret; rotating a secret, a test event, and the recent deliveries with their attempts, to read and redeliver. The events themselves are under webhooks.",
	"admin":           "The back office: the platform's operators (the spec's admin) find and change accounts (tier, operator role, suspension, rate-limit counters), work the reports queue (dismiss, or take the content down), decide bookstore applications, mark payouts paid and refund orders after delivery. Operators only; every change writes an entry in the audit log, in the same transaction as the change.",
	"notifications":   "A store's email settings: whether it hears of each new order at once, in one daily digest (sent at 07:00 UTC for the day before) or not at all, and at which address (default: the owner's account email); and the digest's unsubscribe link (no sign-in: its signed token names the store). The emails themselves (the buyer's confirmation, shipped and ready-for-pickup notices, the store's new-order email) are sent from the order events.",
}

// overview is the document's description: what applies to every route.
func overview() string {
	var b strings.Builder
	b.WriteString("The book platform's HTTP API. Paths carry the version (`/v1`); `/health` and the reference itself do not.\n\n")
	b.WriteString("**Paths.** Where two paths could match one address, a literal segment beats a parameter, left to right: `/v1/users/username/ann` is `/v1/users/username/{username}`, never `/v1/users/{username}/lines`. A trailing slash matches nothing.\n\n")
	b.WriteString("**Authentication.** `Authorization: Bearer <access token>`. Routes marked with the bearerAuth requirement answer 401 without a valid token; on routes where it is optional, a token that is sent must be valid. The token of an account an operator suspended is refused with 403 on every route, and sign-in and refresh refuse the account.\n\n")
	b.WriteString("**Errors.** Every error, including the router's own 404 (no route) and 405 (method not allowed, with `Allow`), is the `ErrorBody` envelope: `{error: {code, name, message, details?, requestId}}`. Each operation lists every status it can answer and says which situation gives which; an error answer documents the headers that explain it, and may also carry the rate-limit and monthly headers of its request, as a success does.\n\n")
	b.WriteString("**Rate limits.** Requests count against the caller's tier rate per minute (")
	tiers := make([]string, 0, len(ratelimit.TierRates))
	for t := range ratelimit.TierRates {
		tiers = append(tiers, t)
	}
	sort.Slice(tiers, func(i, j int) bool { return ratelimit.TierRates[tiers[i]] < ratelimit.TierRates[tiers[j]] })
	for i, t := range tiers {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", t, ratelimit.TierRates[t])
	}
	b.WriteString("; guests and anonymous callers by address, as guest) and against the per-action limits a route lists in `x-rate-limit-actions`. A refused request is 429 with `Retry-After`; its details is the `RateLimitExceeded` body.\n\n")
	b.WriteString("**Monthly limit.** Free accounts publish a limited number of posts and reviews per calendar month (UTC); their answers carry `X-Monthly-Limit`, `X-Monthly-Remaining` and `X-Monthly-Reset` (the reviews quota on `POST /v1/reviews`, the posts quota everywhere else), and a post beyond the limit is 403 with the `MonthlyLimitReached` body in details.\n\n")
	b.WriteString("**Lists.** Cursor lists answer `{items, nextCursor, hasMore}`: pass `nextCursor` back as `cursor`; `limit` is 1-100, default 20. Lists shown as a named array (`{wishlists: [...]}`) page the same way, with `limit` defaulting to 100 and `nextCursor` and `hasMore` beside the array.\n\n")
	b.WriteString("**Retries.** A POST that creates something honours `Idempotency-Key`.\n\n")
	b.WriteString("**HEAD.** Every GET operation also answers HEAD: the same status and headers, without the body.\n\n")
	b.WriteString("**Input.** JSON bodies are read strictly: a `Content-Type` other than JSON is 415; an empty or `null` body where one is required, text that is not UTF-8 or escapes half a surrogate pair, and a key given twice are 400. Every request line and header block of more than 10,240 bytes is 431; a body that does not arrive in time is 408 (the local server; API Gateway buffers bodies).\n")
	return b.String()
}
