package authorizer

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
	"github.com/golang-jwt/jwt/v5"
)

var (
	secret   = []byte("0123456789abcdef0123456789abcdef-test-secret")
	otherKey = []byte("fedcba9876543210fedcba9876543210-other-secret")
	now      = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	claims   = auth.Claims{UserID: "u-123", IsGuest: true, Tier: "free", SessionID: "s-456"}
)

// rawClaims are the access-token claims as a client-side forger would write them.
func rawClaims(issued time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"userId": claims.UserID, "isGuest": claims.IsGuest, "tier": claims.Tier, "sid": claims.SessionID,
		"sub": claims.UserID, "iss": auth.Issuer,
		"iat": issued.Unix(), "exp": issued.Add(15 * time.Minute).Unix(),
	}
}

// keys is the authorizer's key set: secret signs, previous is still accepted.
var (
	previous = []byte("previous-key-0123456789abcdef-0123456789")
	keys     = mustKeySet(secret, previous)
)

func mustKeySet(signing []byte, accepted ...[]byte) auth.KeySet {
	s, err := auth.NewKeySet(signing, accepted...)
	if err != nil {
		panic(err)
	}
	return s
}

func issue(t *testing.T, at time.Time) string {
	t.Helper()
	return issueWith(t, mustKeySet(secret), at)
}

func issueWith(t *testing.T, k auth.KeySet, at time.Time) string {
	t.Helper()
	tok, err := auth.NewTokens(k, 15*time.Minute, func() time.Time { return at }).Issue(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sign signs c with m under key, naming the key kid (none when empty).
func sign(t *testing.T, m jwt.SigningMethod, key any, c jwt.MapClaims, kid ...string) string {
	t.Helper()
	unsigned := jwt.NewWithClaims(m, c)
	if len(kid) > 0 {
		unsigned.Header["kid"] = kid[0]
	}
	tok, err := unsigned.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAuthorizer_Handle(t *testing.T) {
	a := New(keys, 15*time.Minute, func() time.Time { return now },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	anonymous := map[string]any{CtxAuthenticated: false}
	ours := auth.KeyID(secret)

	tests := []struct {
		name       string
		header     string // "" sends no Authorization header
		authorized bool
		context    map[string]any
	}{
		{name: "valid_token_is_authenticated", header: "Bearer " + issue(t, now.Add(-time.Minute)), authorized: true,
			context: map[string]any{CtxAuthenticated: true, CtxUserID: "u-123", CtxIsGuest: true, CtxSessionID: "s-456"}},
		{name: "lowercase_scheme_is_accepted", header: "bearer " + issue(t, now), authorized: true,
			context: map[string]any{CtxAuthenticated: true, CtxUserID: "u-123", CtxIsGuest: true, CtxSessionID: "s-456"}},
		{name: "missing_header_passes_unauthenticated", header: "", authorized: true, context: anonymous},
		{name: "non_bearer_header_passes_unauthenticated", header: "Basic dXNlcjpwYXNz", authorized: true, context: anonymous},
		{name: "bearer_without_token_passes_unauthenticated", header: "Bearer ", authorized: true, context: anonymous},
		{name: "not_a_jwt_passes_unauthenticated", header: "Bearer not-a-jwt", authorized: true, context: anonymous},
		{name: "a_token_of_two_words_passes_unauthenticated", header: "Bearer a b", authorized: true, context: anonymous},
		{name: "a_token_with_a_comma_passes_unauthenticated", header: "Bearer " + issue(t, now.Add(-time.Minute)) + ",x", authorized: true, context: anonymous},
		{name: "expired_genuine_token_passes_unauthenticated", header: "Bearer " + issue(t, now.Add(-time.Hour)), authorized: true, context: anonymous},
		{name: "token_of_the_previous_key_is_authenticated", header: "Bearer " + issueWith(t, mustKeySet(previous), now.Add(-time.Minute)), authorized: true,
			context: map[string]any{CtxAuthenticated: true, CtxUserID: "u-123", CtxIsGuest: true, CtxSessionID: "s-456"}},
		{name: "unknown_key_id_passes_unauthenticated", header: "Bearer " + sign(t, jwt.SigningMethodHS256, otherKey, rawClaims(now), auth.KeyID(otherKey)), authorized: true, context: anonymous},
		{name: "no_key_id_passes_unauthenticated", header: "Bearer " + sign(t, jwt.SigningMethodHS256, secret, rawClaims(now)), authorized: true, context: anonymous},
		{name: "alg_none_is_denied", header: "Bearer " + sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, rawClaims(now), ours), authorized: false},
		{name: "wrong_key_is_denied", header: "Bearer " + sign(t, jwt.SigningMethodHS256, otherKey, rawClaims(now), ours), authorized: false},
		{name: "expired_and_wrong_key_is_denied", header: "Bearer " + sign(t, jwt.SigningMethodHS256, otherKey, rawClaims(now.Add(-time.Hour)), ours), authorized: false},
		{name: "hs512_with_right_key_is_denied", header: "Bearer " + sign(t, jwt.SigningMethodHS512, secret, rawClaims(now), ours), authorized: false},
		{name: "tampered_payload_is_denied", header: "Bearer " + tamper(t, issue(t, now)), authorized: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := events.APIGatewayV2CustomAuthorizerV2Request{
				Version: "2.0", Type: "REQUEST", RouteKey: "GET /v1/users/me", RawPath: "/v1/users/me",
				Headers: map[string]string{"host": "api.example.com"},
			}
			if tc.header != "" {
				req.Headers["authorization"] = tc.header
			}
			resp, err := a.Handle(context.Background(), req)
			if err != nil {
				t.Fatalf("Handle returned an error (API Gateway would answer 500): %v", err)
			}
			if resp.IsAuthorized != tc.authorized {
				t.Fatalf("isAuthorized = %v, want %v", resp.IsAuthorized, tc.authorized)
			}
			if !tc.authorized {
				if len(resp.Context) != 0 {
					t.Errorf("a denied response carries context %v", resp.Context)
				}
				return
			}
			if len(resp.Context) != len(tc.context) {
				t.Errorf("context = %v, want %v", resp.Context, tc.context)
			}
			for k, want := range tc.context {
				if got := resp.Context[k]; got != want {
					t.Errorf("context[%q] = %v, want %v", k, got, want)
				}
			}
		})
	}
}

// tamper changes a genuine token's payload, keeping its signature: what a
// client trying to become another user would send.
func tamper(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	forged := sign(t, jwt.SigningMethodHS256, otherKey, jwt.MapClaims{"userId": "someone-else"})
	return parts[0] + "." + strings.Split(forged, ".")[1] + "." + parts[2]
}

func TestLoadConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

	t.Run("needs_only_the_token_variables", func(t *testing.T) {
		c, err := LoadConfig(env(map[string]string{config.EnvJWTSecret: string(secret), config.EnvAccessTokenTTL: "10m"}))
		if err != nil {
			t.Fatalf("LoadConfig: %v", err)
		}
		if string(c.JWTSecret) != string(secret) || c.AccessTokenTTL != 10*time.Minute {
			t.Errorf("config = %+v", c)
		}
	})
	t.Run("keys_from_a_secret", func(t *testing.T) {
		c, err := LoadConfig(env(map[string]string{config.EnvJWTSecretARN: "arn:aws:secretsmanager:eu-west-1:1:secret:jwt"}))
		if err != nil || c.JWTSecretARN == "" || c.JWTSecret != nil {
			t.Errorf("config = %+v, err = %v", c, err)
		}
	})
	t.Run("ttl_defaults", func(t *testing.T) {
		c, err := LoadConfig(env(map[string]string{config.EnvJWTSecret: string(secret)}))
		if err != nil || c.AccessTokenTTL != config.DefaultAccessTokenTTL {
			t.Errorf("config = %+v, err = %v", c, err)
		}
	})
	for name, tc := range map[string]struct {
		vars map[string]string
		want []string
	}{
		"missing_secret":        {vars: map[string]string{}, want: []string{"JWT_SECRET is required"}},
		"short_previous_secret": {vars: map[string]string{config.EnvJWTSecret: string(secret), config.EnvJWTPreviousSecret: "short"}, want: []string{"JWT_PREVIOUS_SECRET must be at least 32 bytes"}},
		"short_secret":          {vars: map[string]string{config.EnvJWTSecret: "short"}, want: []string{"JWT_SECRET must be at least 32 bytes"}},
		"bad_ttl_and_no_secret": {vars: map[string]string{config.EnvAccessTokenTTL: "soon"}, want: []string{"JWT_SECRET is required", "ACCESS_TOKEN_TTL must be a positive Go duration"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadConfig(env(tc.vars))
			if err == nil {
				t.Fatal("LoadConfig accepted a bad configuration")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestAuthorizer_LambdaWire drives the handler through the Lambda entry
// point with the sample event, checking the JSON API Gateway reads: the
// simple-response field names and the context.
func TestAuthorizer_LambdaWire(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("..", "..", "events", "authorizer-users-me.json"))
	if err != nil {
		t.Fatal(err)
	}
	a := New(keys, 15*time.Minute, func() time.Time { return now },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	out, err := lambda.NewHandler(a.Handle).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	// The sample's token is a placeholder, not a JWT: a client state, so
	// it passes unauthenticated and the function answers the 401.
	if want := `{"isAuthorized":true,"context":{"authenticated":false}}`; string(out) != want {
		t.Errorf("response = %s, want %s", out, want)
	}
}
