package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/books"
)

// Key builders: the only place that knows key formats (docs/data-model.md).

func userPK(id string) string { return "USER#" + id }

const profileSK = "PROFILE"

// emailPK claims an email, case-insensitively.
func emailPK(email string) string { return "EMAIL#" + strings.ToLower(email) }

const emailSK = "EMAIL"

// usernamePK claims a username, case-insensitively.
func usernamePK(username string) string { return "USERNAME#" + strings.ToLower(username) }

const usernameSK = "USERNAME"

func sessionSK(id string) string { return "SESSION#" + id }

const sessionPrefix = "SESSION#"

func refreshTokenPK(hash string) string { return "RTOKEN#" + hash }

const refreshTokenSK = "RTOKEN"

// rateLimitPK is one fixed window of one counter.
func rateLimitPK(scope, action string, windowStart time.Time) string {
	return fmt.Sprintf("RL#%s#%s#%d", scope, action, windowStart.Unix())
}

const rateLimitSK = "RL"

// bookPK is a book; bookSK its one item.
func bookPK(id string) string { return "BOOK#" + id }

const bookSK = "BOOK"

// isbnPK claims a bare ISBN-13 for one book. It is also the GSI1 partition
// key of that book's item, so a book is read by ISBN in one Query.
func isbnPK(isbn13 string) string { return "ISBN#" + isbn13 }

const isbnSK = "ISBN"

// gsiISBN is the index that finds a book item by isbnPK (GSI1SK bookSK).
const gsiISBN = "GSI1"

// postingPK is the partition of a search word's posting items: its first
// books.PartitionRunes characters, so that a prefix of that length or
// longer is one Query (begins_with on the sort key).
func postingPK(word string) string {
	end, n := len(word), 0
	for i := range word {
		if n == books.PartitionRunes {
			end = i
			break
		}
		n++
	}
	return "TOK#" + word[:end]
}

// postingSK names one book under one word; "#" never occurs in a word.
func postingSK(word, bookID string) string { return word + "#" + bookID }

// postingBookID reads the book id back from a posting's sort key.
func postingBookID(sk string) string { return sk[strings.LastIndexByte(sk, '#')+1:] }

// postingRange is the sort-key prefix of a term: the word and the
// separator for an exact word, the bare word for a prefix.
func postingRange(t books.Term) string {
	if t.Prefix {
		return t.Word
	}
	return t.Word + "#"
}

// reviewPK is a review's partition: the review item (reviewSK) and its
// like records (likeSK).
func reviewPK(id string) string { return "REVIEW#" + id }

const reviewSK = "REVIEW"

// reviewClaimSK, in the book's partition, holds the id of userID's one
// review of the book: a conditional put of it makes that review unique.
func reviewClaimSK(userID string) string { return "REVIEWBY#" + userID }

// Review lists, one index each (every review item is in all three):
// GSI1 a book's reviews newest first, GSI2 a book's reviews by rating,
// GSI3 a user's reviews newest first. All are read in descending order.
const (
	gsiBookReviews       = "GSI1"
	gsiBookReviewsRating = "GSI2"
	gsiUserReviews       = "GSI3"
)

func bookReviewsPK(bookID string) string       { return "BOOKREVIEWS#" + bookID }
func bookReviewsRatingPK(bookID string) string { return "BOOKREVIEWSR#" + bookID }
func userReviewsPK(userID string) string       { return "USERREVIEWS#" + userID }

// timeKey is a creation time as a sort key: UTC with nanoseconds and a
// fixed width, so that string order is time order.
func timeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// reviewTimeSK orders reviews by creation time; the id breaks ties.
func reviewTimeSK(createdAt time.Time, id string) string { return timeKey(createdAt) + "#" + id }

// reviewRatingSK orders reviews by rating (one digit), then creation time,
// then id; a rating change rewrites it.
func reviewRatingSK(rating int, createdAt time.Time, id string) string {
	return strconv.Itoa(rating) + "#" + reviewTimeSK(createdAt, id)
}

// linePK is a line's partition: the line item (SK lineSK), its replies
// (SK replySK) and its likes (SK likeSK, likes.go), so deleting a line
// finds everything that hangs off it with one Query.
func linePK(id string) string { return "LINE#" + id }

const lineSK = "LINE"

// replySK is a reply in its line's partition; reply ids start with their
// creation time, so the partition lists replies oldest first.
func replySK(replyID string) string { return replyPrefix + replyID }

const replyPrefix = "REPLY#"

// bookLinesPK is the GSI1 partition of a book's lines and userLinesPK the
// GSI2 partition of an author's lines; both sort by lineTimeSK.
func bookLinesPK(bookID string) string { return "BOOKLINES#" + bookID }

func userLinesPK(userID string) string { return "USERLINES#" + userID }

// lineTimeSK orders a line in its book's and its author's lists: the
// creation time (timeKey), then the id to break ties, so every line has
// its own place and a page boundary between two lines of the same instant
// is still exact.
func lineTimeSK(createdAt time.Time, id string) string { return timeKey(createdAt) + "#" + id }

// The indexes of the two line lists (GSI1 also serves books by ISBN,
// under other partition keys).
const (
	gsiBookLines = "GSI1"
	gsiUserLines = "GSI2"
)
