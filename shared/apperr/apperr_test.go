package apperr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errThing = NotFound("Thing not found")

// A sentinel wrapped with context is still the sentinel, and still the
// client's message: storage adds context, callers test with errors.Is.
func TestSentinelsSurviveWrapping(t *testing.T) {
	err := fmt.Errorf("get thing %s: %w", "t1", errThing)
	assert.ErrorIs(t, err, errThing)
	e, ok := As(err)
	require.True(t, ok)
	assert.Equal(t, "Thing not found", e.Message, "the context stays out of the client's message")
	assert.Equal(t, CodeNotFound, CodeOf(err))

	assert.Equal(t, CodeInternal, CodeOf(errors.New("boom")))
	_, ok = As(errors.New("boom"))
	assert.False(t, ok)
}

func TestWithDetails_CopiesTheError(t *testing.T) {
	d := errThing.WithDetails(map[string]any{"k": 1})
	assert.Nil(t, errThing.Details, "the sentinel is unchanged")
	assert.Equal(t, 1, d.Details["k"])
	assert.NotErrorIs(t, d, errThing, "a copy is another value")
}

func TestFields(t *testing.T) {
	var f Fields
	assert.NoError(t, f.Err(), "no field, no error")
	f.Add("name", "")
	assert.NoError(t, f.Err(), "an empty message is no problem")

	f.Add("name", "is required")
	f.Add("name", "is too long")
	f.Add("email", "must be a valid email address")
	err := f.Err()
	e, ok := As(err)
	require.True(t, ok)
	assert.Equal(t, CodeValidation, e.Code)
	assert.Equal(t, "Invalid request", e.Message)
	assert.Equal(t, map[string]string{"name": "is required", "email": "must be a valid email address"}, e.Details["fields"],
		"every field is named once, with its first problem")
}
