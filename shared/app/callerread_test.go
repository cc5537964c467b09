package app_test

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getItems records, for each GetItem that only (nil: every one)
// selects, whether it was strongly consistent.
type getItems struct {
	only  func(*dynamodb.GetItemInput) bool
	mu    sync.Mutex
	reads []bool
}

func (c *getItems) middleware(st *middleware.Stack) error {
	return st.Initialize.Add(middleware.InitializeMiddlewareFunc("getItems", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if g, ok := in.Parameters.(*dynamodb.GetItemInput); ok && (c.only == nil || c.only(g)) {
			c.mu.Lock()
			c.reads = append(c.reads, aws.ToBool(g.ConsistentRead))
			c.mu.Unlock()
		}
		return next.HandleInitialize(ctx, in)
	}), middleware.After)
}

func (c *getItems) take() []bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reads
	c.reads = nil
	return out
}

// accountReads selects the GetItems of an account's record.
func accountReads(g *dynamodb.GetItemInput) bool {
	sk, ok := g.Key["SK"].(*types.AttributeValueMemberS)
	return ok && sk.Value == "PROFILE"
}

// The router reads a signed-in caller eventually consistent on a public
// read (GET, auth Optional, no role: the page is the same without a
// token) and strongly consistent everywhere else: a write, a Bearer
// read, a route that shows the caller's record, a role's route.
func TestCallerRead_EventualOnlyOnPublicReads(t *testing.T) {
	reads := &getItems{only: accountReads}
	env := testenv.New(t, testenv.WithAPIOptions(reads.middleware))
	ann := env.Signup(t, "eventualann")
	const missing = "00000000-0000-4000-8000-000000000000"

	for _, tc := range []struct {
		method, path string
		consistent   bool
	}{
		{"GET", "/v1/books/" + missing, false},
		{"GET", "/v1/books/" + missing + "/lines", false},
		{"GET", "/v1/users/me", true},
		{"GET", "/v1/wishlists", true},
		{"PUT", "/v1/users/me", true},
	} {
		reads.take()
		env.Do(tc.method, tc.path, map[string]any{"bio": "Reading."}, ann.Token)
		got := reads.take()
		require.NotEmpty(t, got, "%s %s read no account", tc.method, tc.path)
		assert.Equal(t, tc.consistent, got[0], "%s %s: the caller's read", tc.method, tc.path)
	}
	// Anonymous, a public read reads no account at all.
	env.Do("GET", "/v1/books/"+missing, nil, "")
	assert.Empty(t, reads.take())
}

// The public profile and the store's public page are read eventually
// consistent (claim and item), like the other public pages; the owner's
// own view of them stays strongly consistent.
func TestPublicPages_ReadEventually(t *testing.T) {
	reads := &getItems{}
	env := testenv.New(t, testenv.WithAPIOptions(reads.middleware))
	owner := env.Signup(t, "eventualowner")
	shop := env.OpenShop(t, "eventual-books", nil)
	reads.take()

	for _, path := range []string{
		"/v1/users/" + owner.ID,
		"/v1/users/username/eventualowner",
		"/v1/stores/" + shop.Slug,
		"/v1/stores/" + shop.Slug + "/website-config",
	} {
		res := env.Do("GET", path, nil, "")
		require.Equal(t, 200, res.Status, "%s: %s", path, res)
		got := reads.take()
		require.NotEmpty(t, got, "%s read nothing", path)
		assert.NotContains(t, got, true, "%s: every GetItem eventually consistent", path)
	}
	for _, tc := range []struct{ path, token string }{{"/v1/users/me", owner.Token}, {"/v1/stores/my", shop.Owner.Token}} {
		res := env.Do("GET", tc.path, nil, tc.token)
		require.Equal(t, 200, res.Status, "%s: %s", tc.path, res)
		assert.NotContains(t, reads.take(), false, "%s: the owner's own view, strongly consistent", tc.path)
	}
}
