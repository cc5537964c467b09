package callstats

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSummary_DepthCountsOnlySequentialCalls(t *testing.T) {
	_, rec := With(context.Background())
	t0 := time.Unix(0, 0)
	at := func(from, to int) (time.Time, time.Time) {
		return t0.Add(time.Duration(from) * time.Millisecond), t0.Add(time.Duration(to) * time.Millisecond)
	}
	add := func(op string, from, to int) {
		s, e := at(from, to)
		rec.Record(Call{Service: "dynamodb", Operation: op, Start: s, End: e})
	}
	// User read and counter overlap (one level), then two sequential writes.
	add("GetItem", 0, 10)
	add("UpdateItem", 1, 12)
	add("TransactWriteItems", 13, 20)
	add("PutItem", 21, 25)
	rec.Record(Call{Service: "s3", Operation: "PutObject", Start: t0, End: t0.Add(time.Second)})

	calls, depth := rec.Summary("dynamodb")
	assert.Equal(t, 4, calls)
	assert.Equal(t, 3, depth)

	var nilRec *Recorder
	nilRec.Record(Call{})
	calls, depth = nilRec.Summary("dynamodb")
	assert.Zero(t, calls)
	assert.Zero(t, depth)
}

// A recorder made in a context that carries one passes every call on to
// it, so a test around a router sees what the router's recorder sees; the
// summaries stay each recorder's own.
func TestWith_NestedRecorderPassesCallsOn(t *testing.T) {
	ctx, outer := With(context.Background())
	_, inner := With(ctx)
	inner.Record(Call{Service: "dynamodb", Operation: "TransactWriteItems", Actions: []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:PutItem"}})
	outer.Record(Call{Service: "s3", Operation: "CopyObject", Actions: []string{"s3:GetObject", "s3:PutObject"}})

	assert.Equal(t, []string{"dynamodb:TransactWriteItems"}, inner.Operations())
	assert.Equal(t, []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}, inner.Actions())
	assert.Equal(t, []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "s3:GetObject", "s3:PutObject"}, outer.Actions())
	calls, _ := outer.Summary("dynamodb")
	assert.Equal(t, 1, calls)
}
