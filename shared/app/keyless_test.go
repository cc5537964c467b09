package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/api/docsapi"
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/api/usersapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keylessEnv is a function's environment as the stack sets it for a
// Keyless function: everything but the signing keys.
func keylessEnv(t *testing.T) {
	for name, v := range map[string]string{
		config.EnvTableName: "t",
		config.EnvJWTSecret: "", config.EnvJWTPreviousSecret: "", config.EnvJWTNextSecret: "", config.EnvJWTSecretARN: "",
		"AWS_REGION": "us-east-1",
	} {
		t.Setenv(name, v)
	}
}

// The functions that verify no token start and serve without any key,
// as the stack deploys them (not granted the secret, not told its ARN);
// any other group refuses to start so.
func TestFromEnv_keylessGroupsStartWithoutKeys(t *testing.T) {
	keylessEnv(t)
	a, g, err := app.FromEnv(t.Context(), healthapi.Group)
	require.NoError(t, err)
	require.True(t, g.Keyless())
	h := app.HTTPHandler(a, g)
	get := func(path string) int {
		res, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
			RawPath: path, RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodGet, Path: path}},
		})
		require.NoError(t, err)
		return res.StatusCode
	}
	assert.Equal(t, http.StatusOK, get("/health"))
	assert.Equal(t, http.StatusNotFound, get("/v1/no-such-thing"), "the fallback's envelope, without a key")
	assert.Equal(t, http.StatusNotFound, get("/v1/users/me"), "another group's path is not served here")

	_, g, err = app.FromEnv(t.Context(), docsapi.Group)
	require.NoError(t, err)
	assert.Equal(t, "docs", g.Name)

	// The media bucket is the users group's setting (avatars), which the
	// stack sets on its function alone: health and docs started without it.
	_, _, err = app.FromEnv(t.Context(), usersapi.Group)
	assert.ErrorContains(t, err, s3media.EnvBucket+" is required")
	t.Setenv(s3media.EnvBucket, "media")
	t.Setenv(s3media.EnvBaseURL, "https://media.example.com")
	_, _, err = app.FromEnv(t.Context(), usersapi.Group)
	require.ErrorIs(t, err, config.ErrNoJWTKeys)
	assert.ErrorContains(t, err, "group users verifies tokens")
}
