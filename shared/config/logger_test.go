package config

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In Lambda a line has no time (CloudWatch Logs stamps it); locally it
// keeps one. Either way the level, the message and a caller's own time
// inside a group stay.
func TestNewLogger_TimeOnlyOutsideLambda(t *testing.T) {
	for _, inLambda := range []bool{true, false} {
		var buf bytes.Buffer
		NewLogger(&buf, "info", inLambda).Info("request", "status", 200, slog.Group("job", "time", "12:00"))
		var line map[string]any
		require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
		_, stamped := line["time"]
		assert.Equal(t, !inLambda, stamped, "inLambda=%v: %s", inLambda, buf.String())
		assert.Equal(t, "request", line["msg"])
		assert.Equal(t, "INFO", line["level"])
		assert.Equal(t, map[string]any{"time": "12:00"}, line["job"], "a group's time is the caller's")
	}
}

func TestNewLogger_Level(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, "warn", true)
	l.Info("quiet")
	assert.Empty(t, buf.String())
	buf.Reset()
	NewLogger(&buf, "nonsense", true).Info("heard")
	assert.Contains(t, buf.String(), `"msg":"heard"`, "an unknown level is info")
}

func TestInLambda(t *testing.T) {
	t.Setenv(envLambdaFunctionName, "")
	assert.False(t, InLambda())
	t.Setenv(envLambdaFunctionName, "bookplatform-books")
	assert.True(t, InLambda())
}
