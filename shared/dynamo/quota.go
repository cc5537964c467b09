package dynamo

import (
	"github.com/bookplatform/backend/shared/quota"
	"github.com/guregu/dynamo/v2"
)

// quotaCharge is the transaction item that counts one post on the user
// item (access pattern "count a user's posts this month"). It is
// conditional on the record the charge was computed from: the same month
// and, for a limited user, the very count it read (under the limit); a
// new month resets both counts. A failed condition means a concurrent post or a
// month change: the transaction names it quota.ErrStale, and
// quota.Policy.Do re-reads and retries.
func quotaCharge(t *table, c quota.Charge) *dynamo.Update {
	attr, other := "monthlyPosts", "monthlyReviews"
	if c.Kind == quota.Reviews {
		attr, other = other, attr
	}
	upd := t.update(UserKey(c.UserID))
	if c.PrevMonth != c.Month {
		return upd.Set("quotaMonth", c.Month).Set(attr, 1).Set(other, 0).
			If("attribute_exists(PK) AND (attribute_not_exists(quotaMonth) OR quotaMonth <> ?)", c.Month)
	}
	upd = upd.Add(attr, 1)
	if c.Limit > 0 {
		// Exactly the count read, so the count after is known; the
		// limit was checked against it.
		if c.Usage.Current == 0 {
			return upd.If("quotaMonth = ? AND (attribute_not_exists($) OR $ = ?)", c.Month, attr, attr, 0)
		}
		return upd.If("quotaMonth = ? AND $ = ?", c.Month, attr, c.Usage.Current)
	}
	return upd.If("quotaMonth = ?", c.Month)
}
