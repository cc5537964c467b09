package config

import (
	"io"
	"log/slog"
	"os"
)

// envLambdaFunctionName is set by the Lambda runtime in every function,
// and nowhere else.
const envLambdaFunctionName = "AWS_LAMBDA_FUNCTION_NAME"

// InLambda reports whether the process runs in Lambda.
func InLambda() bool { return os.Getenv(envLambdaFunctionName) != "" }

// NewLogger returns the JSON logger every function writes with, to w at
// level (info when empty or unknown). In Lambda (inLambda) a line has no
// time: CloudWatch Logs stamps every event itself (Logs Insights'
// @timestamp) and bills every byte, so the stamp would be paid twice on
// every line. Elsewhere (make run, tests) stderr and stdout lines have no
// other stamp and keep theirs.
func NewLogger(w io.Writer, level string, inLambda bool) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if inLambda {
		opts.ReplaceAttr = dropTime
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// dropTime leaves out the record's time, and only it: an attribute
// called time inside a group is the caller's and stays.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
