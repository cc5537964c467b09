package config

import (
	"io"
	"log/slog"
)

// NewLogger returns the JSON logger every function writes with, to w at
// level (info when empty or unknown). Every line keeps its time, in RFC
// 3339 with milliseconds (logTime), although CloudWatch Logs stamps each
// event too: with the JSON log format, Lambda adds a timestamp of its own
// to a line that has no valid one and takes such a line's level as INFO
// (Developer Guide, "Log-level filtering"), so leaving the time out would
// save no byte and would misfile every warning and error.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l, ReplaceAttr: logTime}))
}

// logTimeLayout is RFC 3339 in UTC to the millisecond: CloudWatch Logs
// keeps an event's time to the millisecond, so the nanoseconds slog
// writes by default were six bytes a line, on every request, that no
// query could use.
const logTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// logTime writes a line's own time (not an attribute of a group) with
// logTimeLayout.
func logTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 && a.Value.Kind() == slog.KindTime {
		return slog.String(slog.TimeKey, a.Value.Time().UTC().Format(logTimeLayout))
	}
	return a
}
