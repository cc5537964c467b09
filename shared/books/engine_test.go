package books

import (
	"context"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingSearcher is an engine that records what it was asked.
type recordingSearcher struct{ got []Query }

func (r *recordingSearcher) Search(_ context.Context, q Query) (SearchResult, error) {
	r.got = append(r.got, q)
	return SearchResult{Items: []*Book{{ID: "b1"}}, Total: 7, TotalIsLowerBound: true}, nil
}

// The service checks the query and hands the configured engine the one
// parse both engines read; what the engine answers is the answer.
func TestService_Search_configuredEngine(t *testing.T) {
	eng := &recordingSearcher{}
	s := NewService(Deps{Search: eng})

	res, err := s.Search(context.Background(), "  Harry Pót ", 10, 20)
	require.NoError(t, err)
	assert.Equal(t, SearchResult{Items: []*Book{{ID: "b1"}}, Total: 7, TotalIsLowerBound: true}, res)

	_, err = s.Search(context.Background(), "978-0-306-40615-7", 5, 0)
	require.NoError(t, err)
	_, err = s.Search(context.Background(), "it", 5, 0)
	require.NoError(t, err)

	assert.Equal(t, []Query{
		{Text: "Harry Pót", Words: []string{"harry", "pot"}, PrefixLast: true, Limit: 10, Offset: 20},
		{Text: "978-0-306-40615-7", ISBN13: "9780306406157", Words: []string{"978", "0", "306", "40615", "7"}, PrefixLast: true, Limit: 5},
		{Text: "it", Words: []string{"it"}, Limit: 5},
	}, eng.got)

	// A client's mistake never reaches the engine.
	for _, bad := range []struct {
		q             string
		limit, offset int
	}{{" ", 10, 0}, {"x", 0, 0}, {"x", 51, 0}, {"x", 10, -1}} {
		_, err := s.Search(context.Background(), bad.q, bad.limit, bad.offset)
		assert.Equal(t, apperr.CodeBadRequest, apperr.CodeOf(err), "%+v: %v", bad, err)
	}
	assert.Len(t, eng.got, 3)
}
