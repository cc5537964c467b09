package books

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// How much of its ranked lists a search reads (docs/decisions.md, "Catalog
// search at size"). A list is read probeSize postings first, then in
// chunks of what the page still needs, each at least twice the last, at
// most maxChunk; once the page is full the search stops at the end of what it
// has read, and it never reads more than maxScan postings past the page,
// however few of them match the other query words.
const (
	probeSize = 50
	maxChunk  = 500
	maxScan   = 1000
	// completionsRead is how many words of a prefix Completions returns,
	// of which the maxCompletions shortest are read.
	completionsRead = 200
	// A query of several words that finds no match within maxScan reads
	// on with the store filtering (MatchingPostings): filterChunk
	// postings a read, at most maxFilteredScan in all (about 4 MB of
	// postings, some 500 read units), so words that rarely meet in a
	// large catalog ("dark garden": 1,029 of a million books, none in
	// the first thousand postings of either list) are still found.
	filterChunk     = 4000
	maxFilteredScan = 40000
)

// collected is what a search read: the matching book ids in rank order,
// at least the page's worth when there are that many, and whether the
// candidate list was read to its end (so len(ids) is the exact total).
type collected struct {
	ids      []string
	complete bool
}

// collect reads the plan's lists in rank order, verifying each posting
// against every query word, until need matches are found and the postings
// already read are used up, the lists end, or maxScan postings past need
// were read. A book found twice (under two completions of a prefix) counts
// once, at its first (best) place. The answer is complete only when the
// lists were read to their end and they were all the lists of the query:
// a prefix with more than maxCompletions completions has lists unread.
func (x *IndexSearch) collect(ctx context.Context, q query, need int) (collected, error) {
	src, truncated, err := x.source(ctx, q, need)
	if err != nil || src == nil {
		return collected{complete: !truncated}, err
	}
	var out collected
	seen := map[string]bool{}
	chunk := probeSize
	for scanned := 0; ; {
		if src.done() {
			out.complete = !truncated
			return out, nil
		}
		if !src.ready() {
			if len(out.ids) >= need {
				return out, nil
			}
			if scanned >= need+maxScan {
				// Only a search that found nothing at all reads on: one
				// with some matches answers them with a lower-bound total,
				// as before, rather than pay hundreds of read units (a
				// type-ahead "harry pot" at a million books: 176 instead
				// of 20) for the rest of its page.
				if c := filterable(src, q); c != nil && len(out.ids) == 0 {
					return x.collectFiltered(ctx, q, need, c, out, seen, truncated)
				}
				return out, nil
			}
			// Each read at least doubles the last: a query whose other
			// words rarely match reaches maxScan in a few reads.
			chunk = min(maxChunk, max(2*chunk, need-len(out.ids)))
			if err := src.fill(ctx, x.st, chunk); err != nil {
				return out, err
			}
			continue
		}
		p := src.pop()
		scanned++
		id := p.BookID()
		if seen[id] {
			continue
		}
		seen[id] = true
		if q.match(p) {
			out.ids = append(out.ids, id)
		}
	}
}

// filterable returns the one list a search of several words drives from,
// which collectFiltered can read on with the store filtering; nil for a
// lone word or prefix, whose every posting matches.
func filterable(src postingSource, q query) *cursor {
	m, ok := src.(*merged)
	if !ok || len(m.cursors) != 1 || len(q.words) < 2 {
		return nil
	}
	return m.cursors[0]
}

// collectFiltered goes on where collect's budget ended (c's buffer is
// empty: the budget is checked only then), reading c's list after what
// was read with the store keeping the postings that contain every other
// query word, verified as collect verifies them, until need matches, the
// list's end (then out is complete, as collect's would be) or
// maxFilteredScan postings read.
func (x *IndexSearch) collectFiltered(ctx context.Context, q query, need int, c *cursor, out collected, seen map[string]bool, truncated bool) (collected, error) {
	var others []string
	for _, w := range q.words {
		if w != c.word && !slices.Contains(others, w) {
			others = append(others, w)
		}
	}
	for read := 0; len(out.ids) < need && c.more && read < maxFilteredScan; read += filterChunk {
		ps, last, more, err := x.st.MatchingPostings(ctx, c.word, c.after, filterChunk, others)
		if err != nil {
			return out, err
		}
		c.after, c.more = last, more
		for _, p := range ps {
			if id := p.BookID(); !seen[id] && q.match(p) {
				seen[id] = true
				out.ids = append(out.ids, id)
			}
		}
	}
	out.complete = !c.more && !truncated
	return out, nil
}

// source opens the lists of q's plan and reads their first postings. With
// several exact words it drives from one list: a list read to its end
// within the probe (the shortest such), else the one whose probe matched
// the most postings, ties to the longer word. Every probe has the same
// size whatever the page, so one query drives from the same list on every
// page while the catalog is unchanged. A prefix reads its completions'
// lists merged, of its maxCompletions shortest completions only;
// truncated reports that it had more (or as many as completionsRead, the
// most it asks for), whose books the search does not see. It returns nil
// when there is nothing to read.
func (x *IndexSearch) source(ctx context.Context, q query, need int) (src postingSource, truncated bool, err error) {
	pl := q.plan()
	var words []string
	switch {
	case pl.prefix != "":
		all, err := x.st.Completions(ctx, pl.prefix, completionsRead)
		if err != nil {
			return nil, false, err
		}
		truncated = len(all) > maxCompletions || len(all) >= completionsRead
		words = shortestWords(all, maxCompletions)
	default:
		words = pl.exact
	}
	if len(words) == 0 {
		return nil, truncated, nil
	}
	first := probeSize
	if len(words) == 1 {
		first = min(maxChunk, max(probeSize, need))
	}
	cursors := make([]*cursor, len(words))
	for i, w := range words {
		cursors[i] = &cursor{word: w, more: true}
	}
	if err := fillAll(ctx, x.st, cursors, first); err != nil {
		return nil, false, err
	}
	if pl.prefix != "" || len(cursors) == 1 {
		return &merged{cursors: cursors}, truncated, nil
	}
	best, bestScore := 0, [2]int{}
	for i, c := range cursors {
		score := [2]int{0, len(c.buf)} // a complete list: the shorter the better
		if c.more {
			hits := 0
			for _, p := range c.buf {
				if q.match(p) {
					hits++
				}
			}
			score = [2]int{1, -hits}
		}
		if i == 0 || score[0] < bestScore[0] || score[0] == bestScore[0] && score[1] < bestScore[1] {
			best, bestScore = i, score
		}
	}
	return &merged{cursors: cursors[best : best+1]}, false, nil
}

// shortestWords keeps the n shortest words (ties in word order): a reader
// typing "lov" more likely means love than lovecraftian.
func shortestWords(words []string, n int) []string {
	words = slices.Clone(words)
	slices.SortStableFunc(words, func(a, b string) int {
		return cmp.Or(cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b)), cmp.Compare(a, b))
	})
	return words[:min(n, len(words))]
}

// postingSource is a stream of postings in rank order.
type postingSource interface {
	done() bool  // nothing left, read or unread
	ready() bool // pop needs no read
	fill(ctx context.Context, st Storer, n int) error
	pop() Posting
}

// cursor is one ranked list being read: the postings read and not yet
// used, and where the next read starts.
type cursor struct {
	word  string
	buf   []Posting
	after string
	more  bool
}

// read reads the next n postings, and one more: a list that ends right
// after n is then known to end (DynamoDB answers a read that stops
// exactly at the end with a key to go on from).
func (c *cursor) read(ctx context.Context, st Storer, n int) error {
	ps, more, err := st.RankedPostings(ctx, c.word, c.after, n+1)
	if err != nil {
		return err
	}
	c.buf, c.more = ps, more
	if len(ps) > 0 {
		c.after = ps[len(ps)-1].SortKey
	}
	return nil
}

// fillAll reads the next n postings of every cursor that has none left
// and may have more, all at once.
func fillAll(ctx context.Context, st Storer, cs []*cursor, n int) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range cs {
		if len(c.buf) == 0 && c.more {
			g.Go(func() error { return c.read(gctx, st, n) })
		}
	}
	return g.Wait()
}

// merged merges ranked lists by sort key (one list is the plain case).
// The sort keys of different words' lists compare alike (class,
// popularity, title, id), so the merge is one rank order.
type merged struct{ cursors []*cursor }

func (m *merged) done() bool {
	for _, c := range m.cursors {
		if len(c.buf) > 0 || c.more {
			return false
		}
	}
	return true
}

// ready: the smallest head is known only when every list that may go on
// has a posting in hand.
func (m *merged) ready() bool {
	for _, c := range m.cursors {
		if len(c.buf) == 0 && c.more {
			return false
		}
	}
	return true
}

func (m *merged) fill(ctx context.Context, st Storer, n int) error {
	return fillAll(ctx, st, m.cursors, n)
}

func (m *merged) pop() Posting {
	var best *cursor
	for _, c := range m.cursors {
		if len(c.buf) > 0 && (best == nil || c.buf[0].SortKey < best.buf[0].SortKey) {
			best = c
		}
	}
	p := best.buf[0]
	best.buf = best.buf[1:]
	return p
}

// RefreshRank moves a book's postings to its current popularity bucket
// when that differs from the one they were written with, and reports
// whether it did. Reviews and lines change a book's counters without
// touching its postings (their transactions are theirs); a bucket changes
// only when reviews plus lines cross a power of two, so calling this
// after each counted review or line rewrites a book's postings about
// twenty times in a lifetime of a million readers, never on the way
// between. Searches cannot do it themselves: a GET may not write
// (shared/effects). An import refreshes the rank of every book it
// touches too. A lost race with an import (ErrChanged) is left to the
// import, which writes the current rank.
func (s *Service) RefreshRank(ctx context.Context, id string) (bool, error) {
	b, err := s.d.Store.GetBook(ctx, id)
	if err != nil {
		return false, fmt.Errorf("refresh rank of %s: %w", id, err)
	}
	if b.IndexVersion == IndexVersion && RankOf(b) == b.SearchRank {
		return false, nil
	}
	next := *b
	next.Version = b.Version + 1
	ix := IndexingOf(&next)
	next.SearchTokens, next.SearchRank, next.IndexVersion = ix.Tokens, ix.Rank, IndexVersion
	if err := s.recordWords(ctx, []NewBook{{Book: &next, Index: ix}}); err != nil {
		return false, fmt.Errorf("refresh rank of %s: %w", id, err)
	}
	if err := s.d.Store.UpdateBook(ctx, b, &next, &ix); err != nil {
		if errors.Is(err, ErrChanged) {
			return false, nil
		}
		return false, fmt.Errorf("refresh rank of %s: %w", id, err)
	}
	return true, nil
}
