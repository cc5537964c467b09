package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Behind the CloudFront front door: a request without the secret header,
// or with another value, is 403 in the envelope and reaches nothing; one
// with it reaches the router without the header, with the address
// CloudFront saw as the client's, whatever the client put before it.
func TestFrontDoor(t *testing.T) {
	const secret = "origin-secret-0123456789abcdef0123456789"
	var seen *http.Request
	h := frontDoor(secret, slog.New(slog.NewTextHandler(io.Discard, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	t.Run("no usable forwarded address keeps the source address", func(t *testing.T) {
		serve(map[string]string{OriginVerifyHeader: secret, "X-Forwarded-For": "not-an-ip, 130.176.0.10"})
		assert.Equal(t, "130.176.0.10", seen.RemoteAddr)
		serve(map[string]string{OriginVerifyHeader: secret})
		assert.Equal(t, "130.176.0.10", seen.RemoteAddr)
	})

	t.Run("off without a secret", func(t *testing.T) {
		next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
		assert.NotNil(t, frontDoor("", nil, next))
		rec := httptest.NewRecorder()
		frontDoor("", nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, 204, rec.Code)
	})
}

func TestViewerAddress(t *testing.T) {
	assert.Equal(t, "2001:db8::1", viewerAddress("2001:db8::1, 130.176.0.10"))
	assert.Equal(t, "", viewerAddress("203.0.113.7"))
	assert.Equal(t, "", viewerAddress(""))
}

// secretStub answers GetSecretValue with one value, or an error.
type secretStub struct {
	value string
	err   error
	asked []string
}

func (s *secretStub) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	s.asked = append(s.asked, aws.ToString(in.SecretId))
	if s.err != nil {
		return nil, s.err
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(s.value)}, nil
}

func TestReadOriginSecret(t *testing.T) {
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:origin-AbCdEf"
	t.Run("the secret's value", func(t *testing.T) {
		stub := &secretStub{value: "0123456789abcdef0123456789abcdef0123456789abcdef"}
		v, err := readOriginSecret(context.Background(), stub, arn)
		require.NoError(t, err)
		assert.Equal(t, stub.value, v)
		assert.Equal(t, []string{arn}, stub.asked)
	})
	t.Run("refused", func(t *testing.T) {
		for name, stub := range map[string]*secretStub{
			"too short":  {value: "short"},
			"empty":      {value: ""},
			"unreadable": {err: errors.New("AccessDeniedException")},
		} {
			_, err := readOriginSecret(context.Background(), stub, arn)
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), config.EnvOriginVerifySecretARN, name)
		}
	})
}
