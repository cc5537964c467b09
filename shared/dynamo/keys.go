package dynamo

import (
	"fmt"
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
