package dynamo_test

import (
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every call records the capacity DynamoDB reported it consumed, table
// and indexes apart: the cost benchmark prices requests from it.
func TestClient_RecordsConsumedCapacity(t *testing.T) {
	env := testenv.New(t)
	h := dynamo.Handle{DB: dynamo.NewClient(env.AWS), Table: env.Config.TableName}
	store := dynamo.NewUsers(h)

	ctx, rec := callstats.With(t.Context())
	u := &users.User{ID: "cap-user", Username: "capacity", Email: "cap@example.com", DisplayName: "Cap"}
	require.NoError(t, store.CreateUser(ctx, u))
	wrote := rec.Capacity()
	// Three new items, transactional: at least 2 WRU each (DynamoDB
	// Local reports 2 for the lot; atLeastBilled).
	assert.Equal(t, 6.0, wrote.TableWrite, "%+v", wrote)
	assert.Zero(t, wrote.Read(), "%+v", wrote)

	ctx, rec = callstats.With(t.Context())
	_, err := store.GetUser(ctx, u.ID)
	require.NoError(t, err)
	read := rec.Capacity()
	assert.Equal(t, 1.0, read.TableRead, "a strongly consistent read of a small item: %+v", read)
	assert.Zero(t, read.Write(), "%+v", read)
	calls := rec.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, read, calls[0].Capacity)

	// A batch read of keys that are mostly missing is billed by key.
	ctx, rec = callstats.With(t.Context())
	_, err = dynamo.NewBooks(h).GetBooks(ctx, []string{"missing-1", "missing-2", "missing-3", "missing-4"})
	require.NoError(t, err)
	assert.Equal(t, 2.0, rec.Capacity().TableRead, "four keys, eventually consistent: %+v", rec.Capacity())

	// A query that finds nothing is billed as one read of a missing item
	// (DynamoDB Local reports none): strongly consistent on the table,
	// eventually consistent on an index.
	clubsStore := dynamo.NewClubs(h)
	ctx, rec = callstats.With(t.Context())
	books, err := clubsStore.ListBooks(ctx, "no-such-club")
	require.NoError(t, err)
	require.Empty(t, books)
	assert.Equal(t, callstats.Capacity{TableRead: 1}, rec.Capacity(), "an empty consistent query of the table")
	ctx, rec = callstats.With(t.Context())
	members, err := clubsStore.ListMembers(ctx, "no-such-club", page.First(20))
	require.NoError(t, err)
	require.Empty(t, members.Items)
	assert.Equal(t, callstats.Capacity{IndexRead: 0.5}, rec.Capacity(), "an empty query of an index")
}
