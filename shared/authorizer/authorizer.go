// Package authorizer is the API Gateway HTTP API Lambda authorizer (simple
// responses) placed in front of the back office's routes (the operator
// routes, groups.AuthorizerInvoked): every function verifies the token
// itself, so elsewhere it would only add a Lambda invocation.
//
// Decision: the authorizer never turns a normal client state into a
// response the spec does not describe. API Gateway answers a denied simple
// response with 403 {"message":"Forbidden"}, and clients refresh their
// tokens on 401, not 403. So every state a well-behaved client can be in
// is let through, marked {"authenticated": false}, and the function behind
// the route answers the spec's exact 401 itself ("Missing or invalid
// authorization header" / "Invalid or expired token"):
//
//   - no Authorization header, or one that is not "Bearer <token>";
//
//   - a token that does not parse as a JWT;
//
//   - a genuinely signed token that has expired (or fails another claim
//     rule: only the holder of the key can have minted it).
//
//   - a token naming a key the authorizer does not hold, or none (its
//     "kid" header): a token signed before key ids existed, or under a
//     key retired two rotations ago, is one a client may hold; the
//     function answers "Invalid or expired token" and the client refreshes.
//
// Only a token naming a key the authorizer holds whose signature does not
// verify under it, or that names an algorithm other than HS256 ("none",
// HS512, RS256...), is denied at the edge: that is a forgery, not a client
// state, and it never reaches a function.
//
// The function still verifies the token itself; the authorizer is a
// filter in front of it, not the source of truth, so a misconfigured
// authorizer cannot let a request act as somebody else.
package authorizer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
	"github.com/golang-jwt/jwt/v5"
)

// Keys of the context passed to the function on an authorized request
// (requestContext.authorizer.lambda in its event).
const (
	CtxAuthenticated = "authenticated"
	CtxUserID        = "userId"
	CtxIsGuest       = "isGuest"
	CtxSessionID     = "sessionId"
)

// Config is what the authorizer reads from the environment: only the
// token settings, so its function needs no table, bucket or media URL.
type Config struct {
	config.JWTKeys
	AccessTokenTTL time.Duration
}

// LoadConfig reads the keys (JWT_SECRET and the keys beside it, or
// JWT_SECRET_ARN) and ACCESS_TOKEN_TTL through get (os.Getenv in a main),
// reporting every problem at once.
func LoadConfig(get func(string) string) (Config, error) {
	var errs []error
	keys, err := config.LoadJWTKeys(get)
	errs = append(errs, err)
	c := Config{JWTKeys: keys, AccessTokenTTL: config.DefaultAccessTokenTTL}
	if v := strings.TrimSpace(get(config.EnvAccessTokenTTL)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a positive Go duration such as 15m, got %q", config.EnvAccessTokenTTL, v))
		} else {
			c.AccessTokenTTL = d
		}
	}
	return c, errors.Join(errs...)
}

// MustLoadConfig is LoadConfig from the process environment for main: a
// bad configuration stops the process at start with a clear message.
func MustLoadConfig() Config {
	c, err := LoadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	return c
}

// Authorizer decides API Gateway authorizer requests.
type Authorizer struct {
	tokens *auth.Tokens
	now    func() time.Time
	logger *slog.Logger
}

// New returns an authorizer verifying with keys (secretsmgr.LoadKeyring of
// the configuration); now may be nil for the wall clock and logger nil for
// the default logger.
func New(keys auth.Keyring, accessTTL time.Duration, now func() time.Time, logger *slog.Logger) *Authorizer {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Authorizer{
		tokens: auth.NewTokens(keys, accessTTL, now),
		now:    now,
		logger: logger,
	}
}

// Handle is the Lambda handler. It never returns an error: an error would
// make API Gateway answer 500, and every input has a decision.
func (a *Authorizer) Handle(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
	token, ok := auth.BearerToken(header(req.Headers, "Authorization"))
	if !ok {
		return anonymous(), nil
	}
	if c, err := a.tokens.Verify(token); err == nil {
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: map[string]any{
			CtxAuthenticated: true,
			CtxUserID:        c.UserID,
			CtxIsGuest:       c.IsGuest,
			CtxSessionID:     c.SessionID,
		}}, nil
	}
	if reason, forged := a.forged(token); forged {
		// The token itself is never logged: a forged token is still a
		// credential-shaped string someone may reuse.
		a.logger.WarnContext(ctx, "authorizer denied a forged token",
			"reason", reason, "routeKey", req.RouteKey, "sourceIp", req.RequestContext.HTTP.SourceIP,
			"requestId", req.RequestContext.RequestID)
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: false}, nil
	}
	return anonymous(), nil
}

// anonymous lets the request through unauthenticated; the function answers
// the spec's 401 (every route the authorizer guards takes a Bearer token).
func anonymous() events.APIGatewayV2CustomAuthorizerSimpleResponse {
	return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: map[string]any{CtxAuthenticated: false}}
}

// forged reports whether a token that failed auth.Tokens.Verify failed
// because its signature or algorithm is wrong, as opposed to being not a
// JWT at all, naming a key not held (or none), or a genuine token whose
// claims no longer hold (expired). It parses with the same keys and the
// same algorithm pin as Verify; jwt checks the algorithm and the
// signature before any claim, so a claims error proves the signature
// genuine.
func (a *Authorizer) forged(token string) (string, bool) {
	_, err := jwt.Parse(token, a.tokens.Keyfunc(),
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(a.now),
	)
	switch {
	case err == nil:
		// Genuine and current, yet Verify refused it (issuer, userId/sub):
		// only the key holder can mint that, so it is our bug, not an attack.
		return "", false
	case errors.Is(err, jwt.ErrTokenMalformed), errors.Is(err, auth.ErrUnknownKey):
		return "", false
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return err.Error(), true
	case errors.Is(err, jwt.ErrTokenExpired), errors.Is(err, jwt.ErrTokenInvalidClaims):
		return "", false
	default:
		// Unknown failure kinds are treated as forgeries: failing closed
		// here costs a 403 on a request that could not have verified anyway.
		return err.Error(), true
	}
}

// header looks a header up case-insensitively: payload format 2.0 sends
// lower-case names, but hand-written events and tests may not.
func header(h map[string]string, name string) string {
	if v, ok := h[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
