package testenv_test

import (
	"context"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With WithMail, the SES sender a function builds from the environment
// (its AWS configuration and settings) sends to the stand-in: the test
// reads the message there, and the server lists it at /_local/mail as
// the local run does.
func TestWithMail(t *testing.T) {
	t.Parallel()
	// GIVEN an environment with the mail stand-in
	env := testenv.New(t, testenv.WithMail())
	require.NotNil(t, env.Mail)
	sender := sesmail.FromConfig(env.AWS, env.App.Env, env.App.Logger)

	// WHEN the app's sender sends an email
	id, err := sender.Send(context.Background(), mail.Message{To: "reader@example.com", Subject: "Your order", Text: "Thanks", HTML: "<p>Thanks</p>", Tag: "order-confirmation"})
	require.NoError(t, err)

	// THEN the test finds it in the stand-in
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := env.Mail.WaitFor(ctx, func(m maillocal.Message) bool { return m.SentTo("reader@example.com") })
	require.NoError(t, err)
	assert.Equal(t, id, m.ID)
	assert.Equal(t, "order-confirmation", m.Kind())

	// AND the server lists it at /_local/mail and shows it at /_local/mail/{id}
	res := env.DoHeaders("GET", maillocal.Prefix, nil, map[string]string{"Accept": "application/json"})
	require.Equal(t, 200, res.Status, string(res.Body))
	msgs, _ := res.JSON["messages"].([]any)
	require.Len(t, msgs, 1)
	assert.Equal(t, id, msgs[0].(map[string]any)["id"])
	res = env.Do("GET", maillocal.Prefix+"/"+id+"?format=json", nil, "")
	require.Equal(t, 200, res.Status)
	assert.Equal(t, "<p>Thanks</p>", res.JSON["html"])
}

// Without WithMail there is no stand-in and no /_local/mail: a send
// fails at once rather than reaching AWS.
func TestWithoutMail(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	assert.Nil(t, env.Mail)
	sender := sesmail.FromConfig(env.AWS, env.App.Env, env.App.Logger)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := sender.Send(ctx, mail.Message{To: "reader@example.com", Subject: "x", Text: "x"})
	require.Error(t, err)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 404, env.Do("GET", maillocal.Prefix, nil, "").Status)
}
