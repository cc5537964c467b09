package tracing

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const header = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:0"

//nolint:staticcheck // aws-lambda-go's key is a plain string.
func lambdaContext(h string) context.Context {
	return context.WithValue(context.Background(), lambdaTraceKey, h)
}

func TestParseHeader(t *testing.T) {
	sc, ok := parseHeader(header)
	require.True(t, ok)
	assert.Equal(t, "5759e988bd862e3fe1be46a994272793", sc.TraceID().String())
	assert.Equal(t, "53995c3f42cd8ad8", sc.SpanID().String())
	assert.True(t, sc.IsSampled())
	assert.True(t, sc.IsRemote())
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", xrayTraceID(sc.TraceID()))

	sc, ok = parseHeader("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0")
	require.True(t, ok)
	assert.False(t, sc.IsSampled())

	for _, bad := range []string{"", "Root=1-5759e988-bd862e3fe1be46a994272793", "Parent=53995c3f42cd8ad8",
		"Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8", "Root=1-zz59e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8",
		"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=5399"} {
		_, ok := parseHeader(bad)
		assert.False(t, ok, bad)
	}
}

func TestTraceID(t *testing.T) {
	assert.Equal(t, "", TraceID(context.Background()))
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", TraceID(lambdaContext(header)))
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", TraceID(FromLambda(lambdaContext(header))))
	assert.Equal(t, context.Background(), FromLambda(context.Background()), "no header, nothing to continue")
}

// SampledTraceID names a trace X-Ray records and no other, from the
// header as from the span context continuing it.
func TestSampledTraceID(t *testing.T) {
	unsampled := "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0"
	assert.Equal(t, "", SampledTraceID(context.Background()))
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", SampledTraceID(lambdaContext(header)))
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", SampledTraceID(FromLambda(lambdaContext(header))))
	assert.Equal(t, "", SampledTraceID(lambdaContext(unsampled)))
	assert.Equal(t, "", SampledTraceID(FromLambda(lambdaContext(unsampled))))
	assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", TraceID(lambdaContext(unsampled)), "TraceID names it still")
}

func TestSegmentName(t *testing.T) {
	assert.Equal(t, "GET /v1/users/:userId/lines", segmentName("GET /v1/users/{userId}/lines"))
	assert.Equal(t, "DELETE /v1/lines/:lineId/replies/:replyId", segmentName("DELETE /v1/lines/{lineId}/replies/{replyId}"))
	assert.Equal(t, "GET /health_", segmentName("GET /health?"))
	assert.Len(t, segmentName(strings.Repeat("a", 300)), 200)
}

func TestSetup_OffOutsideLambda(t *testing.T) {
	on, err := Setup(func(string) string { return "" })
	require.NoError(t, err)
	assert.False(t, on)
	on, err = Setup(func(k string) string { return map[string]string{EnvDaemonAddress: "127.0.0.1:2000"}[k] })
	require.NoError(t, err)
	assert.False(t, on, "a daemon address outside Lambda (no function name) is not enough")
}
