package config

import (
	"io"
	"log/slog"
)

// NewLogger returns the JSON logger every function writes with, to w at
// level (info when empty or unknown). Every line keeps its time, in RFC
// 3339 with nanoseconds, although CloudWatch Logs stamps each event too:
// with the JSON log format, Lambda adds a timestamp of its own to a line
// that has no valid one and takes such a line's level as INFO
// (Developer Guide, "Log-level filtering"), so leaving the time out
// would save no byte and would misfile every warning and error.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}
