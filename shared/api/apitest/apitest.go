// Package apitest is what a group's test-support package
// (shared/api/<name>api/<name>apitest) declares about its group for the
// central tests: the steps of the call benchmark's scenario
// (local/bench, TestCallCounts) and the rate-limit actions it expects on
// each route (shared/groups, TestRoutes_perActionLimits).
// shared/groups/groupstest collects them, finding each group's from the
// group list (groups.FactsSource). No function links this package or a
// group's apitest package: a function's main imports its group package
// alone (shared/groups tests it).
package apitest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/bookplatform/backend/shared/httpapi"
)

// Facts is what one group declares for the central tests.
type Facts struct {
	// Steps are the group's steps of the scenario, in the order they run
	// within each stage.
	Steps []Step
	// Actions are the rate-limit actions each of the group's routes
	// counts against ("METHOD /pattern": Route.Actions). The spec's
	// mapping of actions to routes is not given (docs/decisions.md,
	// "Rate limits"): pinning it beside the group makes a new route or a
	// changed mapping a visible decision.
	Actions map[string][]string
}

// Stage orders the scenario: every group's steps of one stage run
// before any of the next, and within a stage the groups run in the
// order of the group list. A step may use what steps before it left in
// State, so a step that needs another group's state belongs to the later
// of the two groups in the list, or to a later stage (the reader's line
// in a club is a step of clubs, a store's follow one of stores).
type Stage int

const (
	// Open: before any account, the routes that need none.
	Open Stage = iota
	// Write: accounts are made, used, and write lines and reviews.
	Write
	// Report: what was written is reported, before it is removed.
	Report
	// Tidy: the readers read and remove what they wrote, keep lists,
	// follow each other, take notes.
	Tidy
	// Gather: the reader, made premium, hosts a club and a challenge.
	Gather
	// Store: a bookseller opens a store that hosts and is followed.
	Store
	// Close: signing out, last, since every stage before uses the tokens.
	Close
)

// Password is the scenario's accounts' password.
const Password = "bench-password-1"

// Step is one request of the scenario. Route names the route-table
// entry ("METHOD /pattern") it exercises; the access log's route field
// must agree, so a step cannot silently hit another route.
type Step struct {
	Stage Stage
	Route string
	Note  string
	Want  int
	Do    func(c *Client, s *State) *Response
	// Before, when set, arranges state behind the API before the step's
	// calls are counted.
	Before func(s *State) error
	// Writes marks a GET that records a change (a custom domain's
	// status moving): the depth target of reads does not apply to it.
	Writes bool
}

// State carries ids and tokens from one step to the next.
type State struct {
	UserID, Username, Email        string
	Token, Refresh                 string
	GuestToken                     string
	MigratedToken, MigratedRefresh string
	BookID                         string // a book of the bench's catalog
	LineID, ReplyID                string // the reader's line on BookID and a reply to it
	ReviewID                       string // the reader's review of BookID
	ClubID, ClubLineID             string // the reader's club and the converted guest's line in it
	ChallengeID                    string // the reader's challenge
	// Promote makes an account premium behind the API (no route does):
	// clubs and challenges are created by premium accounts.
	Promote    func(userID string) error
	MigratedID string // the converted guest's account
	Book2ID    string // another book of the bench's catalog
	WishlistID string // the reader's public wishlist
	NoteID     string // the reader's note on BookID

	// Stores: a bookseller's account and store; what the scenario may
	// do beside the API (a tier change, a DNS record: no route does).
	SellerID, SellerToken string
	StoreSlug, StoreID    string
	// OperatorID and OperatorToken: an operator's account (the back
	// office, /v1/admin), made one behind the API as the first operator
	// is (no route grants the role to someone who has none).
	OperatorID, OperatorToken string
	Upload                    map[string]any // a presigned upload slot
	SetCNAME                  func(host, target string)
	// PutItem writes one item of the table behind the API (item holds
	// PK, SK and its attributes as plain Go values): a state no route
	// makes, such as a webhook delivery the delivery worker attempted.
	PutItem func(item map[string]any) error
	// SignUnsubscribe is the token of a store's digest unsubscribe link,
	// signed with the service's keys: only a digest email hands one out.
	SignUnsubscribe func(storeID string) string

	// ApplicationID is the reader's latest bookstore application.
	ApplicationID string
}

// Client sends requests to a server of the service.
type Client struct {
	Base string
	HTTP *http.Client
	// IdempotencyKey, when set, is sent as the Idempotency-Key header.
	IdempotencyKey string
}

// Keyed is the client sending an Idempotency-Key.
func (c *Client) Keyed(key string) *Client {
	k := *c
	k.IdempotencyKey = key
	return &k
}

// Response is what the client saw; JSON is the body decoded as an object.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Do sends body as JSON (nil: no body) with an optional Bearer token.
func (c *Client) Do(method, path string, body any, token string) *Response {
	var rd io.Reader
	ctype := ""
	if body != nil {
		data, _ := json.Marshal(body)
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	return c.Raw(method, path, ctype, rd, token)
}

// Raw sends body as it is, of content type ctype ("": none).
func (c *Client) Raw(method, path, ctype string, body io.Reader, token string) *Response {
	req, err := http.NewRequest(method, c.Base+path, body)
	if err != nil {
		return &Response{Body: []byte(err.Error())}
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if c.IdempotencyKey != "" {
		req.Header.Set(httpapi.IdempotencyHeader, c.IdempotencyKey)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return &Response{Header: http.Header{}, Body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	_ = json.Unmarshal(data, &r.JSON)
	return r
}

// PutUpload PUTs a small PNG to a presigned upload slot, as a client
// does (straight to object storage: no route, no call of the API's).
func PutUpload(slot map[string]any) {
	url, _ := slot["uploadUrl"].(string)
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(SmallPNG()))
	if err != nil {
		return
	}
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
}

// ImageUpload is a multipart body with a small real PNG in field.
func ImageUpload(field string) (*bytes.Buffer, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile(field, field+".png")
	_, _ = part.Write(SmallPNG())
	_ = mw.Close()
	return &body, mw.FormDataContentType()
}

// SmallPNG is a 16x16 PNG of about 1 KB.
func SmallPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		for y := range 16 {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: uint8(y * 16), B: 128, A: 255})
		}
	}
	var pngData bytes.Buffer
	_ = png.Encode(&pngData, img)
	return pngData.Bytes()
}
