package dynamo_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An operator action's audit entry rides its transaction: stored when
// the action commits, not when it is refused, and once.
func TestAudit_EntryRidesTheActionsTransaction(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewUsers(env.App.Table)
	a := env.Signup(t, "audited")
	now := time.Now().UTC()
	entry := func(target string) audit.Entry {
		return audit.Entry{ActorID: "op-1", Action: audit.ActionUserOperator, TargetType: audit.TargetUser, TargetID: target, Reason: "test"}
	}

	ctx, rec := audit.With(t.Context(), entry(a.ID), now, ids.New)
	require.NoError(t, store.SetOperator(ctx, &users.User{ID: a.ID}, true, now))
	assert.True(t, rec.Written())
	item := env.Item(t, dynamo.AuditKey(rec.Entry.At, rec.Entry.ID))
	assert.Equal(t, "op-1", item["actorId"])
	assert.Equal(t, audit.ActionUserOperator, item["action"])
	assert.Equal(t, a.ID, item["targetId"])
	assert.Nil(t, item["apart"])
	// A second transaction with the same context adds nothing.
	assert.Nil(t, audit.Pending(ctx))
	require.NoError(t, store.SetOperator(ctx, &users.User{ID: a.ID, Operator: true}, true, now))

	// A refused action stores no entry.
	missing := "0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"
	ctx, rec = audit.With(t.Context(), entry(missing), now, ids.New)
	err := store.SetOperator(ctx, &users.User{ID: missing}, true, now)
	assert.True(t, errors.Is(err, users.ErrChanged), "%v", err)
	assert.False(t, rec.Written())
	assert.Empty(t, env.Item(t, dynamo.AuditKey(rec.Entry.At, rec.Entry.ID)))
}
