package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func runCmd(t *testing.T, args ...string) (int, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	code, err := run(args, &out, &errOut)
	return code, out.String() + errOut.String(), err
}

// grant makes an account an operator (the back office answers it) with
// an audit entry by the command's actor; revoke takes the role back; an
// unknown email fails and changes nothing.
func TestGrantRevoke(t *testing.T) {
	env := testenv.New(t)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": testenv.DynamoDBEndpoint(t), config.EnvTableName: env.Config.TableName,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": testenv.Region,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "USER": "alice",
	} {
		t.Setenv(k, v)
	}
	acct := env.Signup(t, "first_op")
	store := dynamo.NewUsers(env.App.Table)
	ctx := t.Context()
	res := env.Do("GET", "/v1/admin/audit", nil, acct.Token)
	require.Equal(t, http.StatusForbidden, res.Status, "%s", res)

	code, out, err := runCmd(t, "grant", "-email", acct.Email, "-reason", "the first operator")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, acct.Email+" ("+acct.ID+") is now an operator; audit entry ")
	u, err := store.GetUser(ctx, acct.ID)
	require.NoError(t, err)
	assert.True(t, u.Operator)
	res = env.Do("GET", "/v1/admin/audit", nil, acct.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)

	log := dynamo.NewAudit(env.App.Table)
	p, err := log.ListAudit(ctx, dynamo.AuditFilter{ActorID: audit.ActorCLI + "alice"}, page.Cursor{Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	e := p.Items[0]
	assert.Equal(t, audit.ActionUserOperator, e.Action)
	assert.Equal(t, audit.TargetUser, e.TargetType)
	assert.Equal(t, acct.ID, e.TargetID)
	assert.Equal(t, "the first operator", e.Reason)
	assert.Equal(t, map[string]string{"operator": "true"}, e.Detail)
	assert.False(t, e.Apart)

	// The platform's last working operator keeps the role.
	code, out, err = runCmd(t, "revoke", "-email", acct.Email)
	assert.Equal(t, 1, code)
	assert.ErrorIs(t, err, users.ErrLastOperator)
	second := env.Signup(t, "second_op")
	code, out, err = runCmd(t, "grant", "-email", second.Email)
	require.NoError(t, err, out)
	require.Equal(t, 0, code)
	n, err := store.OperatorCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	code, out, err = runCmd(t, "revoke", "-email", acct.Email)
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "is no longer an operator")
	u, err = store.GetUser(ctx, acct.ID)
	require.NoError(t, err)
	assert.False(t, u.Operator)
	res = env.Do("GET", "/v1/admin/audit", nil, acct.Token)
	assert.Equal(t, http.StatusForbidden, res.Status, "%s", res)
	p, err = log.ListAudit(ctx, dynamo.AuditFilter{ActorID: audit.ActorCLI + "alice"}, page.Cursor{Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 3)
	assert.Equal(t, map[string]string{"operator": "false"}, p.Items[0].Detail)
	n, err = store.OperatorCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	code, _, err = runCmd(t, "grant", "-email", "nobody@example.com")
	assert.Equal(t, 1, code)
	assert.ErrorIs(t, err, users.ErrNotFound)
	p, err = log.ListAudit(ctx, dynamo.AuditFilter{ActorID: audit.ActorCLI + "alice"}, page.Cursor{Limit: 10})
	require.NoError(t, err)
	assert.Len(t, p.Items, 3)

	// recount leaves a count that is kept as it is.
	code, out, err = runCmd(t, "recount")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "counts its operators already: 1 working")

	for _, args := range [][]string{{}, {"promote", "-email", acct.Email}, {"grant"}, {"revoke", "-email", " "}, {"grant", "-email", acct.Email, "extra"}, {"recount", "-email", acct.Email}} {
		code, _, _ := runCmd(t, args...)
		assert.Equal(t, 2, code, "%v", args)
	}
}
