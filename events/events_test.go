// Package events_test replays every sample event of events/ through the
// handler of the function it is for, as Lambda would hand it over
// (lambda.NewHandler(...).Invoke with the file's bytes), against DynamoDB
// Local: the events are what `sam local invoke -e` sends, and each must be
// one its function handles.
package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	smtypes "github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/authorizer"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/secretsmgr"
	"github.com/bookplatform/backend/shared/worker"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// replay is what replaying an event must give: the function it is for
// and, for an HTTP event, the status its handler answers.
type replay struct {
	function string
	status   int
}

// sqsSamples are the samples that are a worker's SQS batch.
var sqsSamples = map[string]bool{"csvimport-message.json": true, "possync-message.json": true, "webhookdelivery-message.json": true}

// samples are the files of events/ and what each must give. An HTTP
// event with REPLACE_WITH_AN_ACCESS_TOKEN gets a signed-up reader's token.
var samples = map[string]replay{
	"health.json":                 {"health", 200},
	"unknown-route.json":          {"health", 404},
	"wrong-method.json":           {"health", 405}, // no DELETE route of /v1/users/me: $default reaches health, which knows every route
	"auth-login.json":             {"auth", 401},   // no such account in a fresh table
	"users-me.json":               {"users", 200},
	"books-list.json":             {"books", 200},
	"lines-book.json":             {"lines", 404},
	"reviews-book.json":           {"reviews", 404},
	"clubs-list.json":             {"clubs", 200},
	"challenges-list.json":        {"challenges", 200},
	"wishlists-user.json":         {"wishlists", 404},
	"follows-following.json":      {"follows", 200},
	"notes-list.json":             {"notes", 200},
	"stores-list.json":            {"stores", 200},
	"inventory-availability.json": {"inventory", 404},
	"docs-openapi.json":           {"docs", 200},
	"reports-create.json":         {"reports", 404},
	"imports-job.json":            {"imports", 404},  // no such store in a fresh table
	"extpos-connect.json":         {"extpos", 404},   // no such store in a fresh table
	"earnings-store.json":         {"earnings", 404}, // no such store in a fresh table
	"orders-preview.json":         {"orders", 400},   // no such book in a fresh table
	"payments-webhook.json":       {"payments", 400}, // a signature nobody made: refused
	"tradecredit-me.json":         {"tradecredit", 200},
	"webhooks-list.json":          {"webhooks", 404},      // no such store in a fresh table
	"notifications-settings.json": {"notifications", 404}, // no such store in a fresh table
	"pos-sale.json":               {"pos", 403},           // the reader staffs no store
	"admin-user.json":             {"admin", 403},         // the reader is no operator
	"billing-premium.json":        {"billing", 200},       // the reader's subscription: none
	// Not HTTP: the authorizer's request, the relay's stream batch, a
	// rotation step.
	"authorizer-users-me.json": {function: "authorizer"},
	"relay-outbox-insert.json": {function: "relay"},
	"keyrotation-create.json":  {function: "keyrotation"},
	// The pool job's scheduled event (replayed by TestEvents_PoolJob).
	"poolpayouts-schedule.json": {function: "poolpayouts"},
	// The digest job's scheduled event (replayed by TestEvents_DigestJob).
	"emaildigest-schedule.json": {function: "emaildigest"},
	// A worker's SQS batch (replayed by TestEvents_Workers).
	"csvimport-message.json":       {function: "csvimport"},
	"possync-message.json":         {function: "possync"},
	"webhookdelivery-message.json": {function: "webhookdelivery"},
}

// Every function has an event, and every event file is listed.
func TestEvents_EveryFunction(t *testing.T) {
	covered := map[string]bool{}
	workers := map[string]bool{}
	for name, s := range samples {
		covered[s.function] = true
		workers[s.function] = workers[s.function] || sqsSamples[name]
	}
	for _, f := range groups.Functions() {
		if !covered[f.Name] {
			t.Errorf("function %s has no event in events/", f.Name)
		}
		if f.Worker != nil && !workers[f.Name] {
			t.Errorf("worker %s: add an SQS event for it to samples", f.Name)
		}
	}
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := samples[filepath.Base(f)]; !ok {
			t.Errorf("events/%s is not replayed here", filepath.Base(f))
		}
	}
	if len(files) != len(samples) {
		t.Errorf("%d files, %d samples", len(files), len(samples))
	}
}

// Every HTTP event, and the authorizer's request, names a route the API
// has: its routeKey is a route of the route table (the generated
// shared/app route keys), the HEAD the stack adds beside a GET, or
// $default; the gateway may rename a path variable (infra gatewayPaths),
// so variables match whatever their names. Its method is the request's.
func TestEvents_RouteKeys(t *testing.T) {
	variable := regexp.MustCompile(`\{[^}]+\}`)
	known := map[string]bool{"$default": true}
	for _, k := range app.RouteKeys() {
		path := variable.ReplaceAllString(k.Path, "{}")
		known[k.Method+" "+path] = true
		if k.Method == "GET" {
			known["HEAD "+path] = true
		}
	}
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(samples)) {
		var ev struct {
			RouteKey       string `json:"routeKey"`
			RequestContext struct {
				RouteKey string `json:"routeKey"`
				HTTP     struct {
					Method string `json:"method"`
				} `json:"http"`
			} `json:"requestContext"`
		}
		if err := json.Unmarshal(read(t, name, nil), &ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ev.RouteKey == "" && ev.RequestContext.HTTP.Method == "" {
			continue // not an API Gateway event
		}
		checked++
		key := variable.ReplaceAllString(ev.RouteKey, "{}")
		if !known[key] {
			t.Errorf("%s: routeKey %q is no route of the API", name, ev.RouteKey)
		}
		if ev.RequestContext.RouteKey != ev.RouteKey {
			t.Errorf("%s: requestContext.routeKey %q, routeKey %q", name, ev.RequestContext.RouteKey, ev.RouteKey)
		}
		if method, _, _ := strings.Cut(ev.RouteKey, " "); ev.RouteKey != "$default" && method != ev.RequestContext.HTTP.Method {
			t.Errorf("%s: routeKey %q for a %s request", name, ev.RouteKey, ev.RequestContext.HTTP.Method)
		}
	}
	if checked < 15 {
		t.Errorf("%d API Gateway events checked; the HTTP samples were not recognised", checked)
	}
}

func read(t *testing.T, name string, replace map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for k, v := range replace {
		s = strings.ReplaceAll(s, k, v)
	}
	return []byte(s)
}

func invoke(t *testing.T, handler any, payload []byte) []byte {
	t.Helper()
	out, err := lambda.NewHandler(handler).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	return out
}

func TestEvents_HTTP(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "eventsreader")
	built := map[string]*groupHandler{}
	for _, g := range groups.All(env.App.Deps()) {
		built[g.Name] = &groupHandler{h: app.HTTPHandler(env.App, g)}
	}
	for _, name := range slices.Sorted(maps.Keys(samples)) {
		s := samples[name]
		if s.status == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			g, ok := built[s.function]
			if !ok {
				t.Fatalf("no group %s", s.function)
			}
			payload := read(t, name, map[string]string{"REPLACE_WITH_AN_ACCESS_TOKEN": reader.Token, "REPLACE_WITH_THE_USER_ID": reader.ID})
			var resp awsevents.APIGatewayV2HTTPResponse
			if err := json.Unmarshal(invoke(t, g.h, payload), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != s.status {
				t.Errorf("%s → %s: %d %s, want %d", name, s.function, resp.StatusCode, resp.Body, s.status)
			}
			if s.status == 405 && resp.Headers["Allow"] != "GET, HEAD, PUT" {
				t.Errorf("%s: Allow %q, want the path's methods", name, resp.Headers["Allow"])
			}
			if resp.Headers["X-Request-Id"] == "" && resp.MultiValueHeaders["X-Request-Id"] == nil {
				t.Errorf("%s: no X-Request-Id", name)
			}
		})
	}
}

type groupHandler struct {
	h func(context.Context, awsevents.APIGatewayV2HTTPRequest) (awsevents.APIGatewayV2HTTPResponse, error)
}

func TestEvents_Authorizer(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "eventsauth")
	h := authorizer.New(env.App.Keys, env.Config.AccessTokenTTL, nil, env.App.Logger).Handle
	var resp awsevents.APIGatewayV2CustomAuthorizerSimpleResponse
	if err := json.Unmarshal(invoke(t, h, read(t, "authorizer-users-me.json", map[string]string{"REPLACE_WITH_AN_ACCESS_TOKEN": reader.Token})), &resp); err != nil {
		t.Fatal(err)
	}
	if !resp.IsAuthorized || resp.Context["userId"] != reader.ID {
		t.Errorf("authorizer: %+v, want the reader %s authorized", resp, reader.ID)
	}
}

// The relay's event is a stream batch with one outbox INSERT; replayed
// over the outbox item it names, the item is delivered and nothing fails.
func TestEvents_Relay(t *testing.T) {
	env := testenv.New(t)
	payload := read(t, "relay-outbox-insert.json", nil)
	var ev awsevents.DynamoDBEvent
	if err := json.Unmarshal(payload, &ev); err != nil || len(ev.Records) != 1 {
		t.Fatalf("relay event: %v, %d records", err, len(ev.Records))
	}
	image := ev.Records[0].Change.NewImage
	env.PutItem(t, map[string]any{
		dynamo.AttrPK: image[dynamo.AttrPK].String(), dynamo.AttrSK: image[dynamo.AttrSK].String(),
		dynamo.OutboxAttrEvent: image[dynamo.OutboxAttrEvent].String(),
	})
	h := env.App.Relay(registry.Consumers(env.App.Deps())...).Handle
	var resp awsevents.DynamoDBEventResponse
	if err := json.Unmarshal(invoke(t, h, payload), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Errorf("failures %v", resp.BatchItemFailures)
	}
	item := env.Item(t, dynamo.Key{PK: image[dynamo.AttrPK].String(), SK: image[dynamo.AttrSK].String()})
	if item["deliveredAt"] == nil {
		t.Errorf("outbox item not marked delivered: %v", item)
	}
}

// The pool job's event is the schedule's ({}: the previous month);
// replayed on an empty table, it runs that month (a pool of nothing) and
// marks it run.
func TestEvents_PoolJob(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewEarnings(env.App.Table)
	h := (&earnings.Service{Store: store, Now: env.App.Now, Logger: env.App.Logger}).HandlePool
	var res earnings.PoolResult
	if err := json.Unmarshal(invoke(t, h, read(t, "poolpayouts-schedule.json", nil)), &res); err != nil {
		t.Fatal(err)
	}
	if want := earnings.PreviousMonth(env.App.Now()); res.Month != want || res.AlreadyDone {
		t.Errorf("pool job answered %+v, want a first run of %s", res, want)
	}
	if done, err := store.PoolRunDone(context.Background(), res.Month); err != nil || !done {
		t.Errorf("month %s not marked run: %v", res.Month, err)
	}
}

// The digest job's event is the schedule's ({}: the previous day);
// replayed on an empty table, it finds no store with a digest that day.
func TestEvents_DigestJob(t *testing.T) {
	env := testenv.New(t)
	d := env.App.Deps()
	h := notifydeps.Digest(d, sesmail.FromConfig(d.AWS, d.Env, d.Logger)).Handle
	var res notify.DigestResult
	if err := json.Unmarshal(invoke(t, h, read(t, "emaildigest-schedule.json", nil)), &res); err != nil {
		t.Fatal(err)
	}
	if want := notify.Day(env.App.Now().AddDate(0, 0, -1)); res != (notify.DigestResult{Day: want}) {
		t.Errorf("digest job answered %+v, want the day before (%s) with no store", res, want)
	}
}

// The rotation function's event is the createSecret step Secrets Manager
// sends first; replayed against a Secrets Manager that holds the keys
// with a pending version, it writes the rotated keys as that version.
func TestEvents_KeyRotation(t *testing.T) {
	payload := read(t, "keyrotation-create.json", nil)
	var ev awsevents.SecretsManagerSecretRotationEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	sm := &rotationStub{token: ev.ClientRequestToken, current: `{"current":"` + strings.Repeat("k", 64) + `"}`}
	h := (&secretsmgr.Rotator{API: sm}).Handle
	invoke(t, h, payload)
	if sm.pending == "" {
		t.Fatal("no pending version written")
	}
	if _, err := secretsmgr.ParseValue(sm.pending); err != nil || sm.pending == sm.current {
		t.Errorf("pending version %q (current %q): %v", sm.pending, sm.current, err)
	}
}

// rotationStub is Secrets Manager for one secret in rotation: its current
// version, and the version of the rotation's token staged pending
// without a value yet.
type rotationStub struct {
	token, current, pending string
}

func (s *rotationStub) DescribeSecret(context.Context, *secretsmanager.DescribeSecretInput, ...func(*secretsmanager.Options)) (*secretsmanager.DescribeSecretOutput, error) {
	return &secretsmanager.DescribeSecretOutput{RotationEnabled: aws.Bool(true), VersionIdsToStages: map[string][]string{
		"v0": {"AWSCURRENT"}, s.token: {"AWSPENDING"},
	}}, nil
}

func (s *rotationStub) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	if aws.ToString(in.VersionStage) == "AWSPENDING" {
		if s.pending == "" {
			return nil, &smtypes.ResourceNotFoundException{Message: aws.String("no value")}
		}
		return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(s.pending)}, nil
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(s.current)}, nil
}

func (s *rotationStub) PutSecretValue(_ context.Context, in *secretsmanager.PutSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error) {
	if aws.ToString(in.ClientRequestToken) != s.token {
		return nil, errors.New("wrong token")
	}
	s.pending = aws.ToString(in.SecretString)
	return &secretsmanager.PutSecretValueOutput{}, nil
}

func (s *rotationStub) UpdateSecretVersionStage(context.Context, *secretsmanager.UpdateSecretVersionStageInput, ...func(*secretsmanager.Options)) (*secretsmanager.UpdateSecretVersionStageOutput, error) {
	return nil, errors.New("not in createSecret")
}

// A worker's event is an SQS batch as its event source delivers it;
// replayed through the worker's Lambda handler (worker.Lambda, as
// app.Start builds it) on an empty table, nothing fails: the csv-import
// message names a job that is gone, which is nothing to do.
func TestEvents_Workers(t *testing.T) {
	env := testenv.New(t)
	built := map[string]worker.BatchHandler{}
	for _, g := range groups.All(env.App.Deps()) {
		if w := g.Worker; w != nil {
			built[g.Name] = worker.Lambda(w.Handle, dynamo.NewIdempotency(env.App.Table), w.Queue, env.App.Now, env.App.Logger)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(samples)) {
		s := samples[name]
		if !sqsSamples[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			h, ok := built[s.function]
			if !ok {
				t.Fatalf("no worker group %s", s.function)
			}
			var resp awsevents.SQSEventResponse
			if err := json.Unmarshal(invoke(t, h, read(t, name, nil)), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.BatchItemFailures) != 0 {
				t.Errorf("%s: failures %v", name, resp.BatchItemFailures)
			}
		})
	}
}
