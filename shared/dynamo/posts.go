package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// What lines and reviews share as posts: the page context read
// (shared/posts.Reader).

var _ posts.Reader = (*Store)(nil)

// GetUsersAndBooks reads accounts and books in one BatchGetItem (100 keys
// a call, unprocessed keys retried): the authors and books of a page.
func (s *Store) GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error) {
	us := make(map[string]*users.User, len(userIDs))
	bs := make(map[string]*books.Book, len(bookIDs))
	keys := make([]dynamo.Keyed, 0, len(userIDs)+len(bookIDs))
	for _, id := range distinct(userIDs) {
		keys = append(keys, dynamo.Keys{userPK(id), profileSK})
	}
	for _, id := range distinct(bookIDs) {
		keys = append(keys, dynamo.Keys{bookPK(id), bookSK})
	}
	if len(keys) == 0 {
		return us, bs, nil
	}
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil, fmt.Errorf("batch get %d users and %d books: %w", len(userIDs), len(bookIDs), err)
	}
	for _, item := range items {
		sk, _ := item[AttrSK].(*types.AttributeValueMemberS)
		if sk == nil {
			continue
		}
		switch sk.Value {
		case profileSK:
			var it userItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode user: %w", err)
			}
			us[it.ID] = it.toUser()
		case bookSK:
			var it bookItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode book: %w", err)
			}
			bs[it.ID] = it.toBook()
		}
	}
	return us, bs, nil
}
