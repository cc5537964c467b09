package admission

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestGate(t *testing.T) {
	g := NewGate()
	ctx := With(context.Background(), g)
	got := make(chan error, 1)
	go func() { got <- Wait(ctx) }()
	select {
	case <-got:
		t.Fatal("Wait returned before the gate opened")
	case <-time.After(20 * time.Millisecond):
	}
	refused := errors.New("refused")
	g.Open(refused)
	assert.Equal(t, refused, <-got)
	assert.Equal(t, refused, Wait(ctx), "the decision stays")
	assert.NoError(t, Wait(context.Background()), "no gate: nothing to wait for")
}

func TestIsRead(t *testing.T) {
	for _, op := range []string{"GetItem", "Query", "BatchGetItem", "TransactGetItems", "GetObject", "HeadObject"} {
		assert.True(t, IsRead(op), op)
	}
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem", "PutObject", "SendMessage", "SomethingNew"} {
		assert.False(t, IsRead(op), op)
	}
}
