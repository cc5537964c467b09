package users_test

import (
	"context"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/admission"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A request refused by the rate limiter must not get a bcrypt round: every
// password operation waits for admission. With a refused gate, a wrong
// password yields the refusal, not "Invalid email or password", which
// shows the check never ran.
func TestService_PasswordWorkWaitsForAdmission(t *testing.T) {
	env := testenv.New(t)
	svc := env.App.Users
	res, err := svc.Signup(t.Context(), users.SignupInput{Username: "gated", Email: "gated@example.com", Password: "long-enough-pw"})
	require.NoError(t, err)

	refused := apperr.New(apperr.CodeRateLimited, "refused")
	gate := admission.NewGate()
	gate.Open(refused)
	ctx := admission.With(context.Background(), gate)

	_, err = svc.Login(ctx, "gated@example.com", "wrong-password")
	assert.Equal(t, refused, err, "login with a wrong password")
	_, err = svc.Login(ctx, "nobody@example.com", "wrong-password")
	assert.Equal(t, refused, err, "login with an unknown email")
	err = svc.ChangePassword(ctx, res.User, "", "wrong-password", "brand-new-pw")
	assert.Equal(t, refused, err, "password change")
	_, err = svc.Signup(ctx, users.SignupInput{Username: "gated_two", Email: "gated2@example.com", Password: "long-enough-pw"})
	assert.Equal(t, refused, err, "sign-up")

	// Nothing was written by the refused calls.
	_, err = svc.GetByUsername(t.Context(), "gated_two")
	assert.True(t, apperr.Is(err, apperr.CodeNotFound))
	_, err = svc.Login(t.Context(), "gated@example.com", "long-enough-pw")
	assert.NoError(t, err, "the password is unchanged")
}
