package config

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every line carries its time in RFC 3339 (Lambda, with the JSON log
// format, would otherwise add its own and read the line's level as
// INFO), its level and its message.
func TestNewLogger_LinesCarryTheirTime(t *testing.T) {
	var buf bytes.Buffer
	NewLogger(&buf, "info").Warn("request", "status", 503)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
	stamp, ok := line["time"].(string)
	require.True(t, ok, buf.String())
	at, err := time.Parse(time.RFC3339Nano, stamp)
	assert.NoError(t, err, "the time is RFC 3339")
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, stamp, "in UTC, to the millisecond CloudWatch keeps")
	assert.WithinDuration(t, time.Now(), at, time.Minute)
	assert.Equal(t, "request", line["msg"])
	assert.Equal(t, "WARN", line["level"])
}

func TestNewLogger_Level(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, "warn")
	l.Info("quiet")
	assert.Empty(t, buf.String())
	buf.Reset()
	NewLogger(&buf, "nonsense").Info("heard")
	assert.Contains(t, buf.String(), `"msg":"heard"`, "an unknown level is info")
}
