package posts

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeReader records what it was asked for.
type fakeReader struct {
	mu              sync.Mutex
	userIDs, bookID []string
	err             error
}

func (f *fakeReader) GetUsersAndBooks(_ context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.userIDs, f.bookID = userIDs, bookIDs
	if f.err != nil {
		return nil, nil, f.err
	}
	us, bs := map[string]*users.User{}, map[string]*books.Book{}
	for _, id := range userIDs {
		us[id] = &users.User{ID: id}
	}
	for _, id := range bookIDs {
		bs[id] = &books.Book{ID: id}
	}
	return us, bs, nil
}

func TestLoad_ReadsAuthorsBooksAndLikes(t *testing.T) {
	r := &fakeReader{}
	var likedAsked []string
	likedBy := func(_ context.Context, viewer string, ids []string) (map[string]bool, error) {
		assert.Equal(t, "viewer", viewer)
		likedAsked = ids
		return map[string]bool{"p2": true}, nil
	}
	known := map[string]*books.Book{"b1": {ID: "b1", Title: "known"}}
	refs := []Ref{{ID: "p1", UserID: "u1", BookID: "b1"}, {ID: "p2", UserID: "u2", BookID: "b2"}}
	c, err := Load(context.Background(), r, likedBy, "viewer", refs, known)
	require.NoError(t, err)

	assert.Equal(t, []string{"b2"}, r.bookID, "a known book is not read again")
	assert.Equal(t, []string{"u1", "u2"}, r.userIDs)
	assert.Equal(t, []string{"p1", "p2"}, likedAsked)
	assert.Equal(t, "known", c.Books["b1"].Title)
	assert.NotNil(t, c.Books["b2"])
	assert.True(t, c.Liked["p2"])
	assert.False(t, c.Liked["p1"])
	assert.Equal(t, []string{"u1", "u2"}, slices.Sorted(maps.Keys(c.Authors)))
}

func TestLoad_EmptyPageReadsNothing(t *testing.T) {
	r := &fakeReader{}
	calls := 0
	likedBy := func(context.Context, string, []string) (map[string]bool, error) { calls++; return nil, nil }
	c, err := Load(context.Background(), r, likedBy, "viewer", nil, map[string]*books.Book{"b": {ID: "b"}})
	require.NoError(t, err)
	assert.Zero(t, calls)
	assert.Nil(t, r.userIDs)
	assert.NotNil(t, c.Authors)
	assert.NotNil(t, c.Liked)
	assert.NotNil(t, c.Books["b"], "the known book is still in the context")
}

func TestLoad_AnErrorOfEitherReadFailsTheLoad(t *testing.T) {
	refs := []Ref{{ID: "p1", UserID: "u1", BookID: "b1"}}
	noLikes := func(context.Context, string, []string) (map[string]bool, error) { return map[string]bool{}, nil }
	_, err := Load(context.Background(), &fakeReader{err: errors.New("batch failed")}, noLikes, "", refs, nil)
	assert.EqualError(t, err, "batch failed")

	badLikes := func(context.Context, string, []string) (map[string]bool, error) {
		return nil, errors.New("likes failed")
	}
	_, err = Load(context.Background(), &fakeReader{}, badLikes, "v", refs, nil)
	assert.EqualError(t, err, "likes failed")
}

func TestKnown_SkipsTheAccountAndAddsItBack(t *testing.T) {
	r := &fakeReader{}
	asked := 0
	caller := &users.User{ID: "me", DisplayName: "as the router read it"}
	k := Known{ID: "me", User: func() *users.User { asked++; return caller }}

	us, bs, err := k.Skip(r).GetUsersAndBooks(context.Background(), []string{"u1", "me"}, []string{"b1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"u1"}, r.userIDs, "the known account is not read again")
	assert.Equal(t, []string{"b1"}, r.bookID)
	assert.Zero(t, asked, "reads never call User: they may run off the handler's goroutine")
	us = k.Add(us, "u1", "me")
	assert.Same(t, caller, us["me"])
	assert.NotNil(t, us["u1"])
	assert.NotNil(t, bs["b1"])
	assert.Equal(t, 1, asked)

	// Another account's page does not wait for the known one.
	us, _, err = k.Skip(r).GetUsersAndBooks(context.Background(), []string{"u2"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"u2"}, r.userIDs)
	assert.Len(t, k.Add(us, "u2"), 1)
	assert.Equal(t, 1, asked, "User is called only when its account is wanted")

	// Anonymous: nothing is known.
	assert.Equal(t, Reader(r), Known{}.Skip(r))
	assert.Nil(t, Known{}.Add(nil, ""))
}

func TestViews_TheViewersOwnPostsShowTheirKnownAccount(t *testing.T) {
	r := &fakeReader{}
	caller := &users.User{ID: "me", DisplayName: "as the router read it"}
	noLikes := func(context.Context, string, []string) (map[string]bool, error) { return map[string]bool{}, nil }
	p := page.Page[testPost]{Items: []testPost{{Ref{ID: "p1", UserID: "me", BookID: "b1"}}, {Ref{ID: "p2", UserID: "u2", BookID: "b1"}}}}
	v, err := Views(context.Background(), r, noLikes, Known{ID: "me", User: func() *users.User { return caller }}, p, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"u2"}, r.userIDs)
	assert.Same(t, caller, v.Items[0].Author)
	assert.Equal(t, "u2", v.Items[1].Author.ID)
}

// testPost is a post of a page for Views.
type testPost struct{ ref Ref }

func (p testPost) Ref() Ref { return p.ref }
