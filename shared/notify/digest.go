package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/bookplatform/backend/shared/mail"
)

// DigestSchedule is when the daily digest job runs (EventBridge
// Scheduler, UTC): each store with new orders the day before gets one
// digest of them.
const DigestSchedule = "cron(0 7 * * ? *)"

// DigestEvent is the digest job's event: Day (YYYY-MM-DD) names the day
// to send; empty, the day before the run's (UTC).
type DigestEvent struct {
	Day string `json:"day,omitempty"`
}

// DigestResult is what one run did.
type DigestResult struct {
	Day string `json:"day"`
	// Stores had entries that day; Sent of them were mailed by this run
	// (a store mailed by an earlier run, one that turned its email off,
	// or one without an address is not).
	Stores int `json:"stores"`
	Sent   int `json:"sent"`
}

// Digest sends the daily digests.
type Digest struct {
	d Deps
	// Unsubscribe is the link of a store's digest that turns it off
	// (Tokens.UnsubscribeURL).
	Unsubscribe func(storeID string) string
	// sent counts this run's sends, for DigestResult.
	sent int
}

// NewDigest returns the digest job.
func NewDigest(d Deps, unsubscribe func(storeID string) string) *Digest {
	return &Digest{d: NewConsumer(d).d, Unsubscribe: unsubscribe}
}

// Handle sends each store with entries on the event's day one digest,
// once per store, day and address: a run repeated (a retried invocation,
// a day sent again by hand) sends no second one. A failing store does
// not stop the others; the run then fails, naming them, so the
// scheduler's retry sends only what is left.
func (g *Digest) Handle(ctx context.Context, ev DigestEvent) (DigestResult, error) {
	day := ev.Day
	if day == "" {
		day = Day(g.d.Now().UTC().AddDate(0, 0, -1))
	} else if _, err := time.Parse(time.DateOnly, day); err != nil {
		return DigestResult{}, fmt.Errorf("digest: day %q is not YYYY-MM-DD", day)
	}
	storeIDs, err := g.d.Store.DigestStores(ctx, day)
	if err != nil {
		return DigestResult{}, err
	}
	res := DigestResult{Day: day, Stores: len(storeIDs)}
	var errs []error
	for _, id := range storeIDs {
		sent, err := g.store(ctx, id, day)
		if err != nil {
			errs = append(errs, fmt.Errorf("digest of store %s: %w", id, err))
		}
		if sent {
			res.Sent++
		}
	}
	return res, errors.Join(errs...)
}

// store mails one store's digest of day; sent reports whether this call
// sent it.
func (g *Digest) store(ctx context.Context, storeID, day string) (sent bool, err error) {
	r, err := g.d.Store.StoreRecipient(ctx, storeID)
	if errors.Is(err, ErrNoStore) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Turned off since (unsubscribed): nothing. Switched to immediate
	// since: the day's entries were mailed to no one, so the digest goes.
	if r.Settings.NewOrderEmail == Off {
		return false, nil
	}
	if r.Email == "" {
		g.d.Logger.Warn("email: the store has no address: digest not sent", "storeId", storeID, "day", day)
		return false, nil
	}
	entries, err := g.d.Store.DigestEntries(ctx, storeID, day)
	if err != nil || len(entries) == 0 {
		return false, err
	}
	data := DigestMail{StoreName: r.StoreName, Day: day, Entries: entries, UnsubscribeURL: g.Unsubscribe(storeID)}
	for _, e := range entries {
		data.TotalCents += e.TotalCents
	}
	// RFC 8058: the one-click POST to the same link turns the digest off.
	headers := map[string]string{
		"List-Unsubscribe":      "<" + data.UnsubscribeURL + ">",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
	}
	ran := false
	d := g.d
	d.Sender = countingSender{d.Sender, &ran}
	err = sendOnce(ctx, d, "digest:"+day, KindStoreDigest, storeID+":"+day, r.Email, data, headers)
	return ran && err == nil, err
}

// UnsubscribeURL is the digest's unsubscribe link under the API's base
// URL (NOTIFY_PUBLIC_URL).
func UnsubscribeURL(base, token string) string {
	return base + "/v1/notifications/unsubscribe?token=" + url.QueryEscape(token)
}

// countingSender notes whether a message was sent through it.
type countingSender struct {
	inner mail.Sender
	sent  *bool
}

func (s countingSender) Send(ctx context.Context, m mail.Message) (string, error) {
	id, err := s.inner.Send(ctx, m)
	if err == nil {
		*s.sent = true
	}
	return id, err
}

func (s countingSender) Suppressed(ctx context.Context, address string) (bool, error) {
	return s.inner.Suppressed(ctx, address)
}
