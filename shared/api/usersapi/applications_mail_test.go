package usersapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The applicant is emailed the decision once, through the relay's
// registered consumers (the webhooks' fan-out takes the event too and
// sends nothing: it concerns no store).
func TestApplications_DecisionEmailedOnce(t *testing.T) {
	env := testenv.New(t, testenv.WithMail(), testenv.WithStream())
	env.StartRelay(registry.Consumers(env.App.Deps())...)
	op := operator(t, env, "app_mail_op")
	approved := env.Signup(t, "app_mail_yes")
	declined := env.Signup(t, "app_mail_no")
	yes, no := apply(t, env, approved, "Yes <Books>"), apply(t, env, declined, "No Books")
	require.Equal(t, http.StatusOK, env.Do("POST", queue+"/"+yes+"/approve", map[string]any{"reason": "Welcome"}, op.Token).Status)
	require.Equal(t, http.StatusOK, env.Do("POST", queue+"/"+no+"/decline", map[string]any{"reason": "No such shop"}, op.Token).Status)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := env.Mail.WaitFor(ctx, func(m maillocal.Message) bool {
		return m.SentTo(approved.Email) && m.Kind() == notify.KindApplicationApproved
	})
	require.NoError(t, err)
	assert.Contains(t, m.Subject, "Yes <Books>")
	_, err = env.Mail.WaitFor(ctx, func(m maillocal.Message) bool {
		return m.SentTo(declined.Email) && m.Kind() == notify.KindApplicationDeclined
	})
	require.NoError(t, err)
	env.WaitDelivered(t, len(env.Outbox(t))) // every consumer took every event
	time.Sleep(300 * time.Millisecond)       // anything more would have arrived by now
	count := map[string]int{}
	for _, m := range env.Mail.Messages() {
		for _, r := range m.Recipients {
			count[r.Address+" "+m.Kind()]++
		}
	}
	assert.Equal(t, map[string]int{approved.Email + " " + notify.KindApplicationApproved: 1,
		declined.Email + " " + notify.KindApplicationDeclined: 1}, count)
}
