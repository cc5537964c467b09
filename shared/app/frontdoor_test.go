package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Behind the CloudFront front door: a request without the secret header,
// or with another value, is 403 in the envelope and reaches nothing; one
// with it (the current value or the previous, which CloudFront sends
// until a deploy) reaches the router without the header, with the
// address CloudFront saw as the client's, whatever the client put before
// it.
func TestFrontDoor(t *testing.T) {
	const secret = "origin-secret-0123456789abcdef0123456789"
	const previous = "origin-secret-previous-0123456789abcdef"
	var seen *http.Request
	h := frontDoor(func() []string { return []string{secret, previous} }, slog.New(slog.NewTextHandler(io.Discard, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		w.WriteHeader(http.StatusNoContent)
	}))
	serve := func(header map[string]string) *httptest.ResponseRecorder {
		seen = nil
		r := httptest.NewRequest("GET", "/v1/books", nil)
		r.RemoteAddr = "130.176.0.10" // a CloudFront edge, as API Gateway saw it
		for k, v := range header {
			r.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}

	for name, header := range map[string]map[string]string{
		"no header":    {},
		"wrong secret": {OriginVerifyHeader: "guess-0123456789abcdef0123456789abcdef"},
		"a prefix":     {OriginVerifyHeader: secret[:10]},
		"empty":        {OriginVerifyHeader: ""},
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(header)
			require.Equal(t, http.StatusForbidden, rec.Code)
			assert.Nil(t, seen, "nothing behind the door ran")
			var body struct {
				Error struct{ Code, Name, Message, RequestID string }
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, "Forbidden", body.Error.Name)
			assert.Equal(t, MsgNotThroughFrontDoor, body.Error.Message)
			assert.NotEmpty(t, body.Error.RequestID)
			assert.Equal(t, body.Error.RequestID, rec.Header().Get("X-Request-Id"))
		})
	}

	t.Run("through the door", func(t *testing.T) {
		rec := serve(map[string]string{OriginVerifyHeader: secret, "X-Forwarded-For": "10.0.0.1, 203.0.113.7, 130.176.0.10"})
		require.Equal(t, http.StatusNoContent, rec.Code)
		require.NotNil(t, seen)
		assert.Empty(t, seen.Header.Get(OriginVerifyHeader), "the secret goes no further")
		assert.Equal(t, "203.0.113.7", seen.RemoteAddr, "the address CloudFront saw, not the one the client claimed")
	})
	t.Run("the previous value", func(t *testing.T) {
		rec := serve(map[string]string{OriginVerifyHeader: previous})
		require.Equal(t, http.StatusNoContent, rec.Code)
		require.NotNil(t, seen)
		assert.Empty(t, seen.Header.Get(OriginVerifyHeader))
	})
	t.Run("no usable forwarded address keeps the source address", func(t *testing.T) {
		serve(map[string]string{OriginVerifyHeader: secret, "X-Forwarded-For": "not-an-ip, 130.176.0.10"})
		assert.Equal(t, "130.176.0.10", seen.RemoteAddr)
		serve(map[string]string{OriginVerifyHeader: secret})
		assert.Equal(t, "130.176.0.10", seen.RemoteAddr)
	})

	t.Run("off without a secret", func(t *testing.T) {
		next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
		assert.NotNil(t, frontDoor(nil, nil, next))
		rec := httptest.NewRecorder()
		frontDoor(nil, nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, 204, rec.Code)
	})
}

func TestViewerAddress(t *testing.T) {
	assert.Equal(t, "2001:db8::1", viewerAddress("2001:db8::1, 130.176.0.10"))
	assert.Equal(t, "", viewerAddress("203.0.113.7"))
	assert.Equal(t, "", viewerAddress(""))
}

// secretStub answers GetSecretValue with the value of the stage asked
// (AWSCURRENT when none), ResourceNotFoundException for a stage it lacks,
// or an error.
type secretStub struct {
	mu     sync.Mutex
	stages map[string]string
	err    error
	asked  []string
}

func (s *secretStub) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stage := aws.ToString(in.VersionStage)
	if stage == "" {
		stage = "AWSCURRENT"
	}
	s.asked = append(s.asked, aws.ToString(in.SecretId)+" "+stage)
	if s.err != nil {
		return nil, s.err
	}
	v, ok := s.stages[stage]
	if !ok {
		return nil, &types.ResourceNotFoundException{Message: aws.String("no version staged " + stage)}
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(v)}, nil
}

func (s *secretStub) put(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stages["AWSPREVIOUS"], s.stages["AWSCURRENT"] = s.stages["AWSCURRENT"], v
}

func TestReadOriginSecret(t *testing.T) {
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:origin-AbCdEf"
	const first = "0123456789abcdef0123456789abcdef0123456789abcdef"
	const second = "fedcba9876543210fedcba9876543210fedcba9876543210"
	ctx := context.Background()
	t.Run("the secret's value, never changed", func(t *testing.T) {
		stub := &secretStub{stages: map[string]string{"AWSCURRENT": first}}
		v, err := readOriginSecret(ctx, stub, arn, quietLogger)
		require.NoError(t, err)
		assert.Equal(t, []string{first}, v.Values())
		assert.Equal(t, []string{arn + " AWSCURRENT", arn + " AWSPREVIOUS"}, stub.asked)
	})
	t.Run("a value put by hand: both admitted, by a function started before or after", func(t *testing.T) {
		stub := &secretStub{stages: map[string]string{"AWSCURRENT": first}}
		before, err := readOriginSecret(ctx, stub, arn, quietLogger)
		require.NoError(t, err)
		// GIVEN a new value put (CloudFront sends the first until the next deploy)
		stub.put(second)
		// THEN a function started now admits both
		after, err := readOriginSecret(ctx, stub, arn, quietLogger)
		require.NoError(t, err)
		assert.Equal(t, []string{second, first}, after.Values())
		// AND one started before learns the new value at its next read
		require.NoError(t, before.Refresh(ctx))
		assert.Equal(t, []string{second, first}, before.Values())
		h := frontDoor(after.Values, quietLogger, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		for _, v := range []string{first, second} {
			r := httptest.NewRequest("GET", "/v1/books", nil)
			r.Header.Set(OriginVerifyHeader, v)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			assert.Equal(t, http.StatusNoContent, rec.Code)
		}
	})
	t.Run("a short previous value is not admitted", func(t *testing.T) {
		stub := &secretStub{stages: map[string]string{"AWSCURRENT": first, "AWSPREVIOUS": "short"}}
		v, err := readOriginSecret(ctx, stub, arn, quietLogger)
		require.NoError(t, err)
		assert.Equal(t, []string{first}, v.Values())
	})
	t.Run("refused", func(t *testing.T) {
		for name, stub := range map[string]*secretStub{
			"too short":  {stages: map[string]string{"AWSCURRENT": "short"}},
			"empty":      {stages: map[string]string{"AWSCURRENT": ""}},
			"unreadable": {err: errors.New("AccessDeniedException")},
			"missing":    {stages: map[string]string{}},
		} {
			_, err := readOriginSecret(ctx, stub, arn, quietLogger)
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), config.EnvOriginVerifySecretARN, name)
		}
	})
}

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))
