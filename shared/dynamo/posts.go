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

// Briefs reads what a page of posts shows beside each post: the authors'
// and the books' records, in one batch (shared/posts.Reader).
type Briefs struct{ t *table }

var _ posts.Reader = (*Briefs)(nil)

// GetUsersAndBooks reads accounts and books in one BatchGetItem (100 keys
// a call, unprocessed keys retried): the authors and books of a page.
func (s *Briefs) GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error) {
	us := make(map[string]*users.User, len(userIDs))
	bs := make(map[string]*books.Book, len(bookIDs))
	keys := make([]dynamo.Keyed, 0, len(userIDs)+len(bookIDs))
	for _, id := range distinct(userIDs) {
		k := UserKey(id)
		keys = append(keys, dynamo.Keys{k.PK, k.SK})
	}
	for _, id := range distinct(bookIDs) {
		k := BookKey(id)
		keys = append(keys, dynamo.Keys{k.PK, k.SK})
	}
	if len(keys) == 0 {
		return us, bs, nil
	}
	var items []dynamo.Item
	err := s.t.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil, fmt.Errorf("batch get %d users and %d books: %w", len(userIDs), len(bookIDs), err)
	}
	for _, item := range items {
		typ, _ := item["type"].(*types.AttributeValueMemberS)
		if typ == nil {
			continue
		}
		switch typ.Value {
		case typeUser:
			var it userItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode user: %w", err)
			}
			us[it.ID] = it.toUser()
		case typeBook:
			var it bookItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode book: %w", err)
			}
			bs[it.ID] = it.toBook()
		}
	}
	return us, bs, nil
}
