package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Briefs reads what a page of posts shows beside each post: the authors'
// and the books' records, in one batch (shared/posts.Reader).
type Briefs struct{ t *table }

var _ posts.Reader = (*Briefs)(nil)

// batchGetKeys is the most keys one BatchGetItem takes.
const batchGetKeys = 100

// GetUsersAndBooks reads accounts and books with BatchGetItem: the
// authors and books of a page, the owner and books of a wishlist. More
// than 100 keys (a wishlist of up to 500 books) are read in calls of 100
// side by side, so the read is one round trip deep whatever its size;
// unprocessed keys are retried within each call.
func (s *Briefs) GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error) {
	us := make(map[string]*users.User, len(userIDs))
	bs := make(map[string]*books.Book, len(bookIDs))
	keys := append(keysOf(userIDs, UserKey), keysOf(bookIDs, BookKey)...)
	chunks := make([][]dynamo.Item, (len(keys)+batchGetKeys-1)/batchGetKeys)
	var g errgroup.Group
	for i := range chunks {
		part := keys[i*batchGetKeys : min(len(keys), (i+1)*batchGetKeys)]
		g.Go(func() (err error) {
			if chunks[i], err = batchAll[dynamo.Item](ctx, s.t.batch(part...)); err != nil {
				return fmt.Errorf("batch get %d users and books: %w", len(part), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, fmt.Errorf("read %d users and %d books: %w", len(userIDs), len(bookIDs), err)
	}
	for _, chunk := range chunks {
		for _, item := range chunk {
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
	}
	return us, bs, nil
}
