package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every code has a status and a name; an unknown one is a 500.
func TestStatusOf(t *testing.T) {
	for code, s := range statuses {
		got, name := StatusOf(code)
		assert.Equal(t, s.code, got, code)
		assert.NotEmpty(t, name, code)
	}
	got, name := StatusOf("NO_SUCH_CODE")
	assert.Equal(t, http.StatusInternalServerError, got)
	assert.Equal(t, "InternalServerError", name)
}

func TestWriteError(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	write := func(err error) (*httptest.ResponseRecorder, ErrorObject) {
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest("GET", "/", nil), logger, err)
		var body ErrorBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		return rec, body.Error
	}

	rec, e := write(fmt.Errorf("create line: %w", apperr.ErrContention))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "ServiceUnavailable", e.Name)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))

	rec, _ = write(&apperr.Error{Code: apperr.CodeRateLimited, Message: "slow down", RetryAfter: 1500 * time.Millisecond})
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "2", rec.Header().Get("Retry-After"), "whole seconds, rounded up")

	rec, e = write(errors.New("dynamodb: table gone"))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "Internal server error", e.Message, "a 500 shows no internals")
	assert.Empty(t, rec.Header().Get("Retry-After"))
}
