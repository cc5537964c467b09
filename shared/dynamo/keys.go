package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/reports"
)

// Key builders: the only place that knows key formats
// (docs/data-model.md). Stores build every key, index key and list
// partition through these functions; tests use the exported ones to find
// what was stored, so a format is written exactly once.

// Key is an item's primary key.
type Key struct{ PK, SK string }

// Item types: the "type" attribute of every item (postings have none, to
// stay small).
const (
	typeUser          = "User"
	typeEmailClaim    = "EmailClaim"
	typeUsernameClaim = "UsernameClaim"
	typeSession       = "Session"
	typeRefreshToken  = "RefreshToken"
	typeRateBucket    = "RateBucket"
	typeAttempts      = "Attempts"
	typeBook          = "Book"
	typeISBNClaim     = "IsbnClaim"
	typeReview        = "Review"
	typeReviewClaim   = "ReviewClaim"
	typeLine          = "Line"
	typeReply         = "Reply"
	typeLike          = "Like"
	typeIdempotency   = "IdempotencyRecord"
	typeClub          = "Club"
	typeClubMember    = "ClubMember"
	typeClubBook      = "ClubBook"
	typeChallenge     = "Challenge"
	typeParticipant   = "ChallengeParticipant"
	typeDirEntry      = "DirEntry"
	typeDirCount      = "DirCount"
	typeWishlist      = "Wishlist"
	typeWishlistEntry = "WishlistItem"
	typeWish          = "Wish"
	typeStoreDemand   = "StoreDemand"
	typeFollow        = "Follow"
	typeNote          = "Note"
	typeReport        = "Report"
	typeTakedown      = "Takedown"
	typeStore         = "Store"
	typeSlugClaim     = "StoreSlugClaim"
	typeStoreListing  = "StoreListing"
	typeStoreCell     = "StoreCell"
	typeStorePosition = "StorePosition"
	typeStaff         = "StoreStaff"
	typeHomeOf        = "HomeStoreOf"
	typeDomainClaim   = "StoreDomainClaim"
	typeOutboxEvent   = "OutboxEvent"
	typeOperatorCount = "OperatorCount"
)

// UserKey is a user's profile item.
func UserKey(id string) Key { return Key{"USER#" + id, "PROFILE"} }

// OperatorCountKey holds the number of the platform's working operators
// (the role, not suspended): it changes in the transactions that grant
// or revoke the role and that suspend or restore an operator, each
// conditional on leaving at least one (users.go).
func OperatorCountKey() Key { return Key{"OPERATORS", "COUNT"} }

// EmailClaimKey claims an email, case-insensitively.
func EmailClaimKey(email string) Key { return Key{"EMAIL#" + strings.ToLower(email), "EMAIL"} }

// UsernameClaimKey claims a username, case-insensitively.
func UsernameClaimKey(username string) Key {
	return Key{"USERNAME#" + strings.ToLower(username), "USERNAME"}
}

// sessionPrefix begins the sort key of every session of a user.
const sessionPrefix = "SESSION#"

// SessionKey is one sign-in of a user, in the user's partition.
func SessionKey(userID, sessionID string) Key {
	return Key{UserKey(userID).PK, sessionPrefix + sessionID}
}

// RefreshTokenKey is a refresh token, by the hash of its value.
func RefreshTokenKey(hash string) Key { return Key{"RTOKEN#" + hash, "RTOKEN"} }

// RateBucketKey is the record of all of a caller's rate-limit windows in
// one bucket (an hour, ratelimit.Bucket): one item per caller and hour,
// so a request's counting is one write whatever its rules.
func RateBucketKey(scope string, bucketStart time.Time) Key {
	return Key{fmt.Sprintf("RL#%s#%d", scope, bucketStart.Unix()), "RL"}
}

// rateAttr is the attribute of one window in its bucket's record: the
// rule's name and the window's place in the bucket (minute 0-59 of the
// hour for a minute rule, 0 for an hour rule), "request@37".
func rateAttr(rule string, windowStart, bucketStart time.Time, window time.Duration) string {
	return rule + "@" + strconv.Itoa(int(windowStart.Sub(bucketStart)/window))
}

// AttemptKey is one fixed window of an account's attempt counter
// (sign-ins with a password, current-password checks): key names the
// account and what is counted.
func AttemptKey(key string, windowStart time.Time) Key {
	return Key{fmt.Sprintf("ATTEMPTS#%s#%d", key, windowStart.Unix()), "ATTEMPTS"}
}

// eventPrefix begins the partition key of every outbox item: the
// relay's stream filter and the local poller select outbox items by it.
const eventPrefix = "EVENT#"

// EventKey is the outbox item of one event (outbox.go): a partition of
// its own per event id, so emitting spreads over the table like any
// other write instead of heating one "outbox" partition.
func EventKey(eventID string) Key { return Key{eventPrefix + eventID, "EVENT"} }

// IdempotencyKey is the record of one Idempotency-Key; key names the
// caller's scope (user and route) and the client's key.
func IdempotencyKey(key string) Key { return Key{"IDEMP#" + key, "IDEMP"} }

// BookKey is a book's item.
func BookKey(id string) Key { return Key{"BOOK#" + id, "BOOK"} }

// ISBNClaimKey claims a bare ISBN-13 for one book.
func ISBNClaimKey(isbn13 string) Key { return Key{"ISBN#" + isbn13, "ISBN"} }

// bookISBNIndexKey is the GSI1 key of a book item: its ISBN-13's
// partition (the claim's partition key, on the index), so a book is read
// by ISBN in one Query.
func bookISBNIndexKey(isbn13 string) Key { return Key{ISBNClaimKey(isbn13).PK, BookKey("").SK} }

// PostingKey is one word of one book in the search index: the word's own
// partition, sorted by rank (books.Indexing.SortKey: class, popularity,
// title, book id), so a page of a word's best matches is the first items
// of one Query.
func PostingKey(word, sortKey string) Key { return Key{PostingPartition(word), sortKey} }

// PostingPartition is the partition key of a word's postings.
func PostingPartition(word string) string { return "TERM#" + word }

// legacyPostingKey is a posting of the first index layout (index version
// 0): PK TOK#<first 3 characters>, SK <word>#<bookId>. Only deleted, when
// such a book is next imported.
func legacyPostingKey(word, bookID string) Key {
	return Key{"TOK#" + firstRunes(word, 3), word + "#" + bookID}
}

// WordKey records an indexed word for prefix completion: the partition is
// its first books.PrefixRunes characters, so the words starting with a
// prefix of that length or longer are one Query (begins_with on the sort
// key).
func WordKey(word string) Key { return Key{"TERMS#" + firstRunes(word, books.PrefixRunes), word} }

// firstRunes is s cut after n characters.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// timeKey is a creation time as a sort key: UTC with nanoseconds and a
// fixed width, so that string order is time order.
func timeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// timeIDKey orders an item by creation time; its id breaks ties, so
// every item has its own place and a page boundary between two items of
// the same instant is exact.
func timeIDKey(createdAt time.Time, id string) string { return timeKey(createdAt) + "#" + id }

// ReviewKey is a review's item; its partition also holds its likes.
func ReviewKey(id string) Key { return Key{"REVIEW#" + id, "REVIEW"} }

// ReviewClaimKey, in the book's partition, holds the id of userID's one
// review of the book: a conditional put of it makes that review unique.
func ReviewClaimKey(bookID, userID string) Key { return Key{BookKey(bookID).PK, "REVIEWBY#" + userID} }

// The review lists (every review item is in all three): a book's reviews
// newest first (GSI1), by rating (GSI2), a user's newest first (GSI3).
func bookReviews(bookID string) list {
	return list{index: GSI1, pk: "BOOKREVIEWS#" + bookID, desc: true}
}
func bookReviewsByRating(bookID string) list {
	return list{index: GSI2, pk: "BOOKREVIEWSR#" + bookID, desc: true}
}
func userReviews(userID string) list {
	return list{index: GSI3, pk: "USERREVIEWS#" + userID, desc: true}
}

// reviewRatingSK orders reviews by rating (one digit), then creation time,
// then id; a rating change rewrites it.
func reviewRatingSK(rating int, createdAt time.Time, id string) string {
	return strconv.Itoa(rating) + "#" + timeIDKey(createdAt, id)
}

// LineKey is a line's item. Its partition also holds its replies and its
// likes, so deleting a line finds everything that hangs off it with one
// Query.
func LineKey(id string) Key { return Key{"LINE#" + id, "LINE"} }

// replyPrefix begins the sort key of every reply of a line.
const replyPrefix = "REPLY#"

// ReplyKey is a reply in its line's partition; reply ids start with their
// creation time, so the partition lists replies oldest first.
func ReplyKey(lineID, replyID string) Key { return Key{LineKey(lineID).PK, replyPrefix + replyID} }

// lineReplies is the list of a line's replies, oldest first: the table
// partition, read consistently.
func lineReplies(lineID string) list {
	return list{index: Primary, pk: LineKey(lineID).PK, prefix: replyPrefix, consistent: true}
}

// The line lists: a book's lines (GSI1) and an author's (GSI2), newest
// first, both sorted by timeIDKey. A line posted in a club is on neither:
// it is on its club's list (GSI1, clubLines) only. A line posted in a
// challenge is on both and on its challenge's list (GSI3).
func bookLines(bookID string) list { return list{index: GSI1, pk: "BOOKLINES#" + bookID, desc: true} }
func userLines(userID string) list { return list{index: GSI2, pk: "USERLINES#" + userID, desc: true} }
func clubLines(clubID string) list { return list{index: GSI1, pk: "CLUBLINES#" + clubID, desc: true} }
func challengeLines(challengeID string) list {
	return list{index: GSI3, pk: "CHALLENGELINES#" + challengeID, desc: true}
}

// likePrefix begins the sort key of every like of an item.
const likePrefix = "LIKE#"

// LikeKey is userID's like of the item with key of: it lives in the liked
// item's partition, so the item's likes are one Query away.
func LikeKey(of Key, userID string) Key { return Key{of.PK, likePrefix + userID} }

// ClubKey is a club's item. Its partition also holds its memberships and
// its reading list, so deleting a club finds everything that hangs off it
// with one Query.
func ClubKey(id string) Key { return Key{"CLUB#" + id, "CLUB"} }

// clubMemberPrefix begins the sort key of every membership of a club.
const clubMemberPrefix = "MEMBER#"

// ClubMemberKey is userID's membership, in the club's partition: a
// conditional put of it makes a membership unique.
func ClubMemberKey(clubID, userID string) Key {
	return Key{ClubKey(clubID).PK, clubMemberPrefix + userID}
}

// clubBookPrefix begins the sort key of every book of a club's reading
// list.
const clubBookPrefix = "BOOK#"

// ClubBookKey is a book on a club's reading list, keyed by the book: a
// book is on a list once.
func ClubBookKey(clubID, bookID string) Key { return Key{ClubKey(clubID).PK, clubBookPrefix + bookID} }

// The membership lists: a club's members in the order they joined (GSI1,
// the host first) and a user's clubs, the latest joined first (GSI2),
// both sorted by timeIDKey(joinedAt, the other id).
func clubMembers(clubID string) list { return list{index: GSI1, pk: "CLUBMEMBERS#" + clubID} }
func userClubs(userID string) list   { return list{index: GSI2, pk: "USERCLUBS#" + userID, desc: true} }

// clubBooks is a club's reading list: its partition's BOOK# items, read
// consistently (at most clubs.MaxBooks).
func clubBooks(clubID string) list {
	return list{index: Primary, pk: ClubKey(clubID).PK, prefix: clubBookPrefix, consistent: true}
}

// ChallengeKey is a challenge's item; its partition also holds its
// participants.
func ChallengeKey(id string) Key { return Key{"CHALLENGE#" + id, "CHALLENGE"} }

// participantPrefix begins the sort key of every participant of a
// challenge.
const participantPrefix = "PART#"

// ParticipantKey is userID's part in a challenge, in its partition.
func ParticipantKey(challengeID, userID string) Key {
	return Key{ChallengeKey(challengeID).PK, participantPrefix + userID}
}

// The participant lists: a challenge's participants by progress, most
// books first (GSI1, progressKey), and a user's challenges, the latest
// joined first (GSI2, timeIDKey(joinedAt, challengeId)).
func challengeParticipants(challengeID string) list {
	return list{index: GSI1, pk: "CHALLENGEPARTS#" + challengeID, desc: true}
}
func userChallenges(userID string) list {
	return list{index: GSI2, pk: "USERCHALLENGES#" + userID, desc: true}
}

// progressKey orders participants by books finished, then by who reached
// that count first, then by user id: read in descending order, the
// progress at a fixed width of 6 digits (challenges.MaxProgress is
// 100000) and the time of the change subtracted from the largest 13-digit
// millisecond count, so an earlier change sorts higher.
func progressKey(progress int, at time.Time, userID string) string {
	return fmt.Sprintf("%06d#%013d#%s", progress, 9999999999999-at.UnixMilli(), userID)
}

// Directories are the offset lists of GET /clubs and GET /challenges: a
// partition per filter, holding one entry per club or challenge (sorted
// newest first by timeIDKey) and one count item, both changed in the
// transaction that creates, moves or deletes what they list, so the
// total is exact and the page is read from one partition, never by
// scanning the table.
const dirEntryPrefix = "E#"

func dirPK(dir string) string { return "DIR#" + dir }

// DirCountKey is the item holding the number of entries of a directory.
func DirCountKey(dir string) Key { return Key{dirPK(dir), "COUNT"} }

// dirEntryKey is the entry of the item id, created at createdAt, in dir.
func dirEntryKey(dir string, createdAt time.Time, id string) Key {
	return Key{dirPK(dir), dirEntryPrefix + timeIDKey(createdAt, id)}
}

// dirEntries is a directory's list, newest first, read consistently (so
// it agrees with its count item).
func dirEntries(dir string) list {
	return list{index: Primary, pk: dirPK(dir), prefix: dirEntryPrefix, desc: true, consistent: true}
}

// ClubDir names the directory of one GET /clubs filter:
// clubs:<scope>:<storeId or ->:<any|public|private>.
func ClubDir(f clubs.Filter) string {
	store := "-"
	if f.Scope == clubs.ScopeStore && f.StoreID != "" {
		store = f.StoreID
	}
	vis := "any"
	if f.Public != nil {
		vis = map[bool]string{true: "public", false: "private"}[*f.Public]
	}
	return "clubs:" + string(f.Scope) + ":" + store + ":" + vis
}

// clubDirs are the directories a club is listed in: every filter that
// selects it (4 for a reader's club, 6 for a store's).
func clubDirs(c *clubs.Club) []string {
	kind := clubs.ScopeUser
	if c.StoreID != "" {
		kind = clubs.ScopeStore
	}
	filters := []clubs.Filter{{Scope: clubs.ScopeAll}, {Scope: kind}}
	if c.StoreID != "" {
		filters = append(filters, clubs.Filter{Scope: clubs.ScopeStore, StoreID: c.StoreID})
	}
	var out []string
	public := c.IsPublic
	for _, f := range filters {
		out = append(out, ClubDir(f))
		f.Public = &public
		out = append(out, ClubDir(f))
	}
	return out
}

// ChallengeDir names the directory of GET /challenges: every challenge,
// or one store's (storeID not "").
func ChallengeDir(storeID string) string {
	if storeID == "" {
		return "challenges:all"
	}
	return "challenges:store:" + storeID
}

// storeDirs are the directories of one store's clubs and challenges:
// their count items are all that is left of them once a deletion has
// let the store's clubs and challenges go.
func storeDirs(storeID string) []string {
	out := []string{ChallengeDir(storeID)}
	for _, public := range []*bool{nil, new(true), new(false)} {
		out = append(out, ClubDir(clubs.Filter{Scope: clubs.ScopeStore, StoreID: storeID, Public: public}))
	}
	return out
}

// challengeDirs are the directories a challenge is listed in.
func challengeDirs(c *challenges.Challenge) []string {
	if c.StoreID == "" {
		return []string{ChallengeDir("")}
	}
	return []string{ChallengeDir(""), ChallengeDir(c.StoreID)}
}

// WishlistKey is a wishlist's item. Its partition also holds the
// wishlist's entries (the books on it), so the single view reads the
// wishlist and its entries side by side and deleting it finds every entry
// with one Query.
func WishlistKey(id string) Key { return Key{"WISHLIST#" + id, "WISHLIST"} }

// wishlistEntryPrefix begins the sort key of every entry of a wishlist.
const wishlistEntryPrefix = "ITEM#"

// WishlistEntryKey is the entry of a book on a wishlist: one per book, so
// a conditional put of it refuses the same book twice.
func WishlistEntryKey(wishlistID, bookID string) Key {
	return Key{WishlistKey(wishlistID).PK, wishlistEntryPrefix + bookID}
}

// wishlistEntries is the list of a wishlist's entries: its partition,
// read consistently, in book-id order (the view sorts by priority).
func wishlistEntries(id string) list {
	return list{index: Primary, pk: WishlistKey(id).PK, prefix: wishlistEntryPrefix, consistent: true}
}

// WishKey is a reader's wish for a book (wishlists demand,
// docs/decisions.md "Wishlist demand"): how many of the reader's
// wishlist entries name the book and the store the wish is counted at.
// Its own partition per reader, so moving a reader's wishes to a new home
// store is one consistent Query of it. It is never read by an endpoint:
// who wishes is not shown.
func WishKey(userID, bookID string) Key { return Key{"WISHER#" + userID, "BOOK#" + bookID} }

// wishes is the list of a reader's wishes, read consistently.
func wishes(userID string) list {
	return list{index: Primary, pk: "WISHER#" + userID, prefix: "BOOK#", consistent: true}
}

// storeDemandPrefix begins the sort key of every demand counter of a
// store.
const storeDemandPrefix = "DEMAND#"

// StoreDemandKey is the number of readers counted at a store who wish
// for a book, in the store's partition (deleting the store removes its
// counters).
func StoreDemandKey(storeID, bookID string) Key {
	return Key{StoreKey(storeID).PK, storeDemandPrefix + bookID}
}

// storeDemand is a store's demand counters on GSI1, most wished first
// (demandKey), under the store's slug: a slug never changes, and the
// owner's GET names the store by it, so the Query runs beside the role
// check instead of after it. A slug used again by a new store of the
// same owner starts empty: a deleted store's counters go with it.
func storeDemand(slug string) list {
	return list{index: GSI1, pk: "STOREDEMAND#" + slug, desc: true}
}

// demandKey orders a store's counters by count at a fixed width of 10
// digits (read descending: the most wished first), then by book id.
// DynamoDB cannot rewrite a string key from an ADD, so a counter's
// change sets count and key together, conditional on the count read.
func demandKey(count int, bookID string) string { return fmt.Sprintf("%010d#%s", count, bookID) }

// The wishlist lists, oldest first, sorted by timeIDKey: a user's
// wishlists (GSI1) and the public ones only (GSI2, a sparse index: a
// private wishlist has no GSI2 keys).
func userWishlists(userID string) list { return list{index: GSI1, pk: "USERWISHLISTS#" + userID} }
func publicWishlists(userID string) list {
	return list{index: GSI2, pk: "PUBLICWISHLISTS#" + userID}
}

// Follow targets: the kind of account followed, in every follow key, so
// that following a store is another kind beside users, not another
// design.
const (
	followTargetUser  = "USER"
	followTargetStore = "STORE"
)

// FollowKey is followerID's follow of the target of a kind (a user, a store):
// one item per follower and target, so a conditional put refuses a second
// follow. The follower's partition holds all their follows.
func FollowKey(followerID, kind, targetID string) Key {
	return Key{"FOLLOWS#" + followerID, kind + "#" + targetID}
}

// The follow lists, newest first, sorted by timeIDKey of the follow's
// time and the other side's id: whom a follower follows of one kind
// (GSI1) and who follows a target (GSI2).
func following(followerID, kind string) list {
	return list{index: GSI1, pk: "FOLLOWING#" + followerID + "#" + kind, desc: true}
}
func followers(kind, targetID string) list {
	return list{index: GSI2, pk: "FOLLOWERS#" + kind + "#" + targetID, desc: true}
}

// NoteKey is a private note. It lives in its author's partition, so a
// note is read, changed or deleted by its author's id and its own: any
// other account's request names a key that does not exist.
func NoteKey(userID, id string) Key { return Key{"NOTES#" + userID, "NOTE#" + id} }

// The note lists, newest first, sorted by timeIDKey: an author's notes
// (GSI1) and those on one book (GSI2).
func userNotes(userID string) list { return list{index: GSI1, pk: "USERNOTES#" + userID, desc: true} }
func userBookNotes(userID, bookID string) list {
	return list{index: GSI2, pk: "USERBOOKNOTES#" + userID + "#" + bookID, desc: true}
}

// ReportKey is reporterID's report of a target: the target's partition
// holds every report of it (what moderation reads), one per reporter, so
// a conditional put refuses a second ("REPORTS#LINE#<id>",
// "REPORTS#REPLY#<lineId>#<replyId>").
func ReportKey(t reports.Target, reporterID string) Key {
	target := strings.ToUpper(string(t.Type)) + "#"
	if t.Type == reports.TargetReply {
		target += t.LineID + "#"
	}
	return Key{"REPORTS#" + target + t.ID, reportByPrefix + reporterID}
}

// reportByPrefix begins the sort key of every report of a target.
const reportByPrefix = "BY#"

// TakedownKey keeps, for its author, content an operator took down from
// a report (takedowns.go): a key of its own, since the content's own key
// is deleted as its author's delete would.
func TakedownKey(t reports.Target) Key {
	target := strings.ToUpper(string(t.Type)) + "#"
	if t.Type == reports.TargetReply {
		target += t.LineID + "#"
	}
	return Key{"TAKENDOWN#" + target + t.ID, "TAKENDOWN"}
}

// takenDownBy is an author's content taken down, most recent first
// (GSI1).
func takenDownBy(authorID string) list {
	return list{index: GSI1, pk: "TAKENDOWNBY#" + authorID, desc: true}
}

// reportQueue is the moderation queue of reports of one status, newest
// first (GSI1): the back office's reports queue.
func reportQueue(status string) list {
	return list{index: GSI1, pk: "REPORTQUEUE#" + status, desc: true}
}

// reportByID is a report's GSI2 key: the back office names a report by
// its id alone, while its item is keyed by target and reporter.
func reportByID(id string) Key { return Key{"REPORT#" + id, "REPORT"} }

// StoreKey is a store's item. Its partition also holds its listing and
// the marks of the readers who chose it as home store, so deleting a
// store finds them with one Query.
func StoreKey(id string) Key { return Key{"STORE#" + id, "STORE"} }

// StoreSlugClaimKey claims a slug for one store; it holds the store's id
// and owner, all a role check needs (httpapi.StoreDirectory). Its
// partition also holds the store's staff memberships (StaffKey).
func StoreSlugClaimKey(slug string) Key { return Key{"STORESLUG#" + slug, "SLUG"} }

// StoreListingKey is a store's entry in the list of stores by name (GSI2,
// storeDirectory): small (its id), so a page of the directory reads many
// of them cheaply and only the page's stores whole.
func StoreListingKey(storeID string) Key { return Key{StoreKey(storeID).PK, "LISTING"} }

// StoreCellKey is the index item of one geohash cell (geo.Cell): one
// attribute per store in the cell (storeCellAttr), so a search by
// position reads the cells its radius meets, one key each, whatever the
// number of stores in them.
func StoreCellKey(cell string) Key { return Key{"STORECELL#" + cell, "CELL"} }

// StorePositionKey is a store's entry in the position list a wide search
// reads by ranges (geo.Plan.Ranges): one partition per first character
// of the geohash (geo.Parts of them), sorted by the position's geohash
// of geo.HashPrecision characters, then the store's id.
func StorePositionKey(p geo.Point, storeID string) Key {
	h := geo.Hash(p)
	return Key{storePositionPK(h[:1]), h + "#" + storeID}
}

// storePositionPK is the partition of one part of the position list.
func storePositionPK(part string) string { return "STOREPOS#" + part }

// StoreDirCountKey holds the number of stores in the directory by name
// (storeDirectory): it changes in the transactions that create and
// delete a store, so GET /stores without a position reads its total in
// one GetItem.
func StoreDirCountKey() Key { return Key{storeDirectory, "COUNT"} }

// storeCellAttr is the attribute of a store in its cell's item: "s" and
// the id's hex digits (a plain name, no placeholder needed), holding
// "<id>,<latitude>,<longitude>".
func storeCellAttr(storeID string) string { return "s" + strings.ReplaceAll(storeID, "-", "") }

// storeDirectory is the GSI2 list of every store by name: one partition
// (a directory of thousands of stores; see data-model.md for scale).
const storeDirectory = "STOREDIR"

// storeDirectorySK orders a store by its folded name, then id.
func storeDirectorySK(name, storeID string) string { return books.Fold(name) + "#" + storeID }

// staffPrefix begins the sort key of every staff membership of a store.
const staffPrefix = "STAFF#"

// StaffKey is userID's staff membership at the store with slug. It lives
// in the slug claim's partition (slugs never change), so the owner's
// staff list is read by slug beside the role check rather than after it.
func StaffKey(slug, userID string) Key { return Key{StoreSlugClaimKey(slug).PK, staffPrefix + userID} }

// storeStaff is the list of a store's staff (by user id), read
// consistently.
func storeStaff(slug string) list {
	return list{index: Primary, pk: StoreSlugClaimKey(slug).PK, prefix: staffPrefix, consistent: true}
}

// homeOfPrefix begins the sort key of every home-store mark of a store.
const homeOfPrefix = "HOMEOF#"

// HomeOfKey marks that userID chose the store as home store.
func HomeOfKey(storeID, userID string) Key { return Key{StoreKey(storeID).PK, homeOfPrefix + userID} }

// StoreDomainClaimKey claims a custom domain (normalized: lower case,
// punycode) for one store; it carries what the storefront's lookup
// answers.
func StoreDomainClaimKey(domain string) Key { return Key{"STOREDOMAIN#" + domain, "DOMAIN"} }

// InventoryItemKey is a store's item of stock (inventory.ItemID of the
// store and the book): a conditional put of it makes the item of a
// store and book unique, and a read by store and id is one GetItem. The
// store's partition "INV#<storeId>" holds its items only, so a sync's
// export walks them with one Query (inventoryAll).
func InventoryItemKey(storeID, itemID string) Key {
	return Key{"INV#" + storeID, inventoryItemPrefix + itemID}
}

// inventoryItemPrefix begins the sort key of every item of a store.
const inventoryItemPrefix = "ITEM#"

// inventoryAll is every item of a store, by id, read consistently (a
// sync's export).
func inventoryAll(storeID string) list {
	return list{index: Primary, pk: InventoryItemKey(storeID, "").PK, prefix: inventoryItemPrefix, consistent: true}
}

// The inventory lists, in title order (inventoryTitleSK): a store's
// items (GSI1) and those in stock (GSI2, sparse: an item with quantity 0
// has no GSI2 keys), both offset lists (GET /inventory); and a book's
// items in stock in every store (GSI3, sparse, sorted by store id), the
// one Query of GET /books/{id}/availability.
func inventoryItems(storeID string) list   { return list{index: GSI1, pk: "INVITEMS#" + storeID} }
func inventoryInStock(storeID string) list { return list{index: GSI2, pk: "INVSTOCK#" + storeID} }
func bookStock(bookID string) list         { return list{index: GSI3, pk: "BOOKSTOCK#" + bookID} }

// inventoryTitleSK orders a store's items by their book's folded title
// (cut at titleSortBytes), then id; the title ends in " #", below any
// letter or digit, so a title sorts before the longer ones it starts.
func inventoryTitleSK(titleKey, itemID string) string {
	return firstBytes(titleKey, 200) + " #" + itemID
}

// firstBytes is s cut to at most n bytes at a character boundary.
func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// InventoryHistoryKey is one change of an item's quantity: the item's
// own history partition (it outlives the item: an item created again
// gets its id back, and its history goes on), sorted by the change's
// time (inventory.ChangeTime: commit order) and the change's id.
func InventoryHistoryKey(storeID, itemID string, at time.Time, changeID string) Key {
	return Key{inventoryHistoryPK(storeID, itemID), timeIDKey(at, changeID)}
}

func inventoryHistoryPK(storeID, itemID string) string { return "INVHIST#" + storeID + "#" + itemID }

// inventoryHistory is an item's history, newest first, read
// consistently.
func inventoryHistory(storeID, itemID string) list {
	return list{index: Primary, pk: inventoryHistoryPK(storeID, itemID), desc: true, consistent: true}
}

// InventoryPostingKey is one word of one item in its store's search
// index: the partition of the word's first books.PrefixRunes characters
// within the store, sorted by the word, then the item's title order
// (inventoryTitleSK). A whole word's postings are begins_with
// "<word>#", a prefix's begins_with "<prefix>", one Query either way.
func InventoryPostingKey(storeID, word, titleSK string) Key {
	return Key{InventoryPostingPartition(storeID, word), word + "#" + titleSK}
}

// InventoryPostingPartition is the partition of a store's postings of
// the words that begin as word does.
func InventoryPostingPartition(storeID, word string) string {
	return "INVTERM#" + storeID + "#" + firstRunes(word, books.PrefixRunes)
}

// Orders (orders.go, orders_earnings.go): an order and its store parts
// in the order's partition; the claim of its number; the pointer from
// its payment session; a user's order counts; the inventory ref that
// finds an item's store from its id; and the earnings the order
// transaction writes (the earnings group reads them).

// OrderKey is an order's item; its partition also holds its parts.
func OrderKey(id string) Key { return Key{"ORDER#" + id, "ORDER"} }

// OrderPartKey is one store's part of an order.
func OrderPartKey(orderID, storeID string) Key { return Key{OrderKey(orderID).PK, "PART#" + storeID} }

// OrderNumberKey claims an order number for one order.
func OrderNumberKey(number string) Key { return Key{"ORDERNO#" + number, "ORDERNO"} }

// PaySessionKey points from a payment session to its order (confirm and
// the provider's webhook know the session alone).
func PaySessionKey(sessionID string) Key { return Key{"PAYSESSION#" + sessionID, "PAYSESSION"} }

// OrderCountsKey holds a user's number of orders, in all and per
// status: the exact totals of GET /orders.
func OrderCountsKey(userID string) Key { return Key{UserKey(userID).PK, "ORDERCOUNTS"} }

// InventoryRefKey is where an inventory item lives (its store and
// book), by the item's id alone: POST /orders names items by id.
func InventoryRefKey(itemID string) Key { return Key{"INVREF#" + itemID, "INVREF"} }

// The order lists, newest first by timeIDKey of the order's creation: a
// user's orders (GSI1) and those in one status (GSI2); a store's parts
// (GSI1) and those in one status (GSI2).
func userOrders(userID string) list { return list{index: GSI1, pk: "USERORDERS#" + userID, desc: true} }
func userOrdersIn(userID, status string) list {
	return list{index: GSI2, pk: "USERORDERS#" + userID + "#" + status, desc: true}
}
func storeOrdersPK(storeID string) string           { return "STOREORDERS#" + storeID }
func storeOrdersInPK(storeID, status string) string { return "STOREORDERS#" + storeID + "#" + status }

// AffiliateCommissionKey is a store's commission of one order (and,
// suffixed #REVERSAL, the reversal of a commission paid already).
func AffiliateCommissionKey(storeID, orderID string) Key {
	return Key{StoreKey(storeID).PK, "COMMISSION#" + orderID}
}

// StoreEarningsKey holds a store's earnings totals, pending and paid.
func StoreEarningsKey(storeID string) Key { return Key{StoreKey(storeID).PK, "EARNINGS"} }

// PoolMonthTotalKey holds a month's pool (YYYY-MM, UTC): the shares of
// the orders of that month with no attribution.
func PoolMonthTotalKey(month string) Key { return Key{"POOLMONTH#" + month, "TOTAL"} }

// PoolMonthStoreKey holds a store's sales of a month: its weight in the
// month's pool split.
func PoolMonthStoreKey(month, storeID string) Key {
	return Key{"POOLMONTH#" + month, "STORE#" + storeID}
}

// Fulfilment (orders_fulfil.go): a store's order counts, in all and per
// part status: the exact totals of GET /stores/{slug}/orders (its lists
// are the part items' GSI1 and GSI2 keys, storeOrdersPK above).

// StoreOrderCountsKey holds a store's number of order parts, in all and
// per part status.
func StoreOrderCountsKey(storeID string) Key { return Key{StoreKey(storeID).PK, "ORDERCOUNTS"} }

// Earnings (shared/earnings): the records the earnings group lists and
// the pool's run writes. The order and cancel transactions write a
// store's commissions and totals and the pool's accumulators through
// the orders block's AffiliateCommissionKey, StoreEarningsKey,
// PoolMonthTotalKey and PoolMonthStoreKey.

// commissionPrefix begins the sort key of a store's commission records
// (a commission, COMMISSION#<orderId>, and a reversal of a paid one,
// COMMISSION#<orderId>#REVERSAL).
const commissionPrefix = "COMMISSION#"

// reversalSuffix ends the sort key of a commission's reversal.
const reversalSuffix = "#REVERSAL"

// CommissionReversalKey is the reversal of a paid commission, beside it
// in the store's partition.
func CommissionReversalKey(storeID, orderID string) Key {
	return Key{StoreKey(storeID).PK, commissionPrefix + orderID + reversalSuffix}
}

// storeCommissions is a store's commission records newest first (GSI1);
// storeCommissionsIn those in one status (GSI2, which a record's
// payment moves it across). Both sort by timeIDKey(createdAt, orderId).
func storeCommissions(storeID string) list {
	return list{index: GSI1, pk: "COMMISSIONS#" + storeID, desc: true}
}
func storeCommissionsIn(storeID, status string) list {
	return list{index: GSI2, pk: "COMMISSIONS#" + storeID + "#" + status, desc: true}
}

// poolPayoutPrefix begins the sort key of a store's pool payouts.
const poolPayoutPrefix = "POOL#"

// PoolPayoutKey is a store's payout of one month's pool; its sort key
// (POOL#<YYYY-MM>) orders them by month.
func PoolPayoutKey(storeID, month string) Key {
	return Key{StoreKey(storeID).PK, poolPayoutPrefix + month}
}

// storePoolPayouts is a store's pool payouts, latest month first, read
// consistently.
func storePoolPayouts(storeID string) list {
	return list{index: Primary, pk: StoreKey(storeID).PK, prefix: poolPayoutPrefix, desc: true, consistent: true}
}

// PoolRunKey marks a month's pool run complete.
func PoolRunKey(month string) Key { return Key{"POOLRUN#" + month, "POOLRUN"} }

// poolMonth is a month's accumulators (PoolMonthTotalKey and one
// PoolMonthStoreKey per store that sold), read consistently.
func poolMonth(month string) list {
	return list{index: Primary, pk: PoolMonthTotalKey(month).PK, consistent: true}
}

// Trade credit (shared/tradecredit): per store and customer, one
// partition holding the balance and its ledger entries.

// TradeCreditBalanceKey is customerID's balance at storeID.
func TradeCreditBalanceKey(storeID, customerID string) Key {
	return Key{"TRADECREDIT#" + storeID + "#" + customerID, "BALANCE"}
}

// creditEntryPrefix begins the sort key of a balance's ledger entries.
const creditEntryPrefix = "ENTRY#"

// TradeCreditEntryKey is the seq-th entry of a ledger (1 for the first),
// beside its balance, sorted by its place in the ledger (zero-padded: the
// sort key orders as text).
func TradeCreditEntryKey(storeID, customerID string, seq int) Key {
	return Key{TradeCreditBalanceKey(storeID, customerID).PK, fmt.Sprintf("%s%012d", creditEntryPrefix, seq)}
}

// creditEntries is a balance's ledger, newest first, read consistently.
func creditEntries(storeID, customerID string) list {
	return list{index: Primary, pk: TradeCreditBalanceKey(storeID, customerID).PK, prefix: creditEntryPrefix, desc: true, consistent: true}
}

// customerCredits is a customer's balances at every store (GSI1, by
// store id).
func customerCredits(customerID string) list {
	return list{index: GSI1, pk: "USERCREDIT#" + customerID}
}

// Point-of-sale sales (shared/pos, pos_sales.go): each sale one item,
// listed per store (GSI1) and per store and staff member (GSI2), newest
// first, by timeIDKey; each number claimed once.

// POSSaleKey is a sale.
func POSSaleKey(id string) Key { return Key{"POSSALE#" + id, "POSSALE"} }

// POSSaleNumberKey claims a sale number: a conditional put of it in the
// sale's transaction makes the number unique.
func POSSaleNumberKey(number string) Key { return Key{"POSSALENO#" + number, "POSSALENO"} }

// storeSales is a store's sales, newest first (GSI1): the sales list and
// the summary's partial hours read a time range of it.
func storeSales(storeID string) list {
	return list{index: GSI1, pk: "POSSALES#" + storeID, desc: true}
}

// staffSales is the sales one staff member made at a store, newest first
// (GSI2).
func staffSales(storeID, staffID string) list {
	return list{index: GSI2, pk: "POSSALES#" + storeID + "#" + staffID, desc: true}
}

// Point-of-sale reports and cash drawer (shared/pos summary.go and
// shift.go; pos_effects.go, pos_reports.go, pos_shifts.go): a store's
// hour counters, its shifts and its open-shift pointer.

// posHourPrefix begins the sort key of a store's hour counters; the rest
// is the UTC hour, YYYY-MM-DDTHH, so string order is time order.
const posHourPrefix = "HOUR#"

// POSStatsKey is what a store's sales of the UTC hour containing at add
// up to (the summary's counters).
func POSStatsKey(storeID string, at time.Time) Key {
	return Key{"POSSTATS#" + storeID, posHourPrefix + at.UTC().Format("2006-01-02T15")}
}

// POSShiftKey is a cash-drawer shift.
func POSShiftKey(id string) Key { return Key{"POSSHIFT#" + id, "POSSHIFT"} }

// POSOpenShiftKey is a store's pointer to its open shift, in the store's
// partition: its conditional put makes one open shift per store.
func POSOpenShiftKey(storeID string) Key { return Key{StoreKey(storeID).PK, "POSSHIFT"} }

// storeShifts is a store's shifts newest first (GSI1); storeShiftsIn
// those in one status (GSI2, which closing moves a shift across). Both
// sort by timeIDKey(openedAt, id).
func storeShifts(storeID string) list {
	return list{index: GSI1, pk: "POSSHIFTS#" + storeID, desc: true}
}
func storeShiftsIn(storeID, status string) list {
	return list{index: GSI2, pk: "POSSHIFTS#" + storeID + "#" + status, desc: true}
}

// Webhooks (webhooks.go): a store's endpoints in its partition, the
// count that bounds them, and each endpoint's deliveries in a partition
// of their own, newest first by their version-7 ids.

// webhookEndpointPrefix begins the sort key of every endpoint of a store.
const webhookEndpointPrefix = "WEBHOOK#"

// WebhookEndpointKey is one endpoint of a store.
func WebhookEndpointKey(storeID, endpointID string) Key {
	return Key{StoreKey(storeID).PK, webhookEndpointPrefix + endpointID}
}

// WebhookCountKey holds how many endpoints a store has (the limit's
// count, changed in each creation's and deletion's transaction).
func WebhookCountKey(storeID string) Key { return Key{StoreKey(storeID).PK, "WEBHOOKCOUNT"} }

// webhookDeliveryPrefix begins the sort key of every delivery of an
// endpoint.
const webhookDeliveryPrefix = "DELIVERY#"

// WebhookDeliveryKey is one delivery (webhooks.DeliveryID) to an
// endpoint.
func WebhookDeliveryKey(endpointID, deliveryID string) Key {
	return Key{"WHDELIVERY#" + endpointID, webhookDeliveryPrefix + deliveryID}
}

// Email (notifications): the store's notification settings, the
// daily digest's entries and the day's list of stores that have one.

// StoreNotificationSettingsKey holds a store's email settings.
func StoreNotificationSettingsKey(storeID string) Key {
	return Key{StoreKey(storeID).PK, "NOTIFYSETTINGS"}
}

// DigestEntryKey is one order in a store's digest of a day (YYYY-MM-DD,
// UTC).
func DigestEntryKey(storeID, day, orderID string) Key {
	return Key{"DIGEST#" + storeID + "#" + day, "ORDER#" + orderID}
}

// DigestDayKey lists a store among those with a digest on day.
func DigestDayKey(day, storeID string) Key { return Key{"DIGESTDAY#" + day, "STORE#" + storeID} }
