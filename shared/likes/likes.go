// Package likes is what liking means, wherever it applies (lines and
// reviews now): the outcome of a like or unlike and its two refusals.
// One user likes an item at most once; the item's likeCount is exact
// because the like record and the counter change in one transaction
// (storage: shared/dynamo, likes.go).
package likes

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
)

// Result is an item's state after a like or unlike by the caller.
type Result struct {
	LikeCount int
	IsLiked   bool
}

// Refusals of the like state machine (spec: States, "Like state").
var (
	ErrAlreadyLiked = apperr.Validation("Already liked", nil)
	ErrNotLiked     = apperr.Validation("Not liked", nil)
)

// Change is a store's like or unlike of an item by a user.
type Change func(ctx context.Context, itemID, userID string) (Result, error)

// Apply runs change on the item with id, for userID: an id that is not a
// UUID names nothing and is notFound, without a read.
func Apply(ctx context.Context, change Change, id, userID string, notFound error) (Result, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return Result{}, notFound
	}
	res, err := change(ctx, id, userID)
	if err != nil {
		return Result{}, fmt.Errorf("like of %s by %s: %w", id, userID, err)
	}
	return res, nil
}
