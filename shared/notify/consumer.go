package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/worker"
)

// ConsumerName is the relay consumer's name (its dedupe records'): stable.
const ConsumerName = "email"

// Lock is how long one email's send holds its once-record: longer than
// the relay gives a consumer's call (relay.ConsumeTimeout, 10 s, and
// its mark), so a live send's record is never taken over.
const Lock = 30 * time.Second

// Keep is how long an email's once-record is kept. The key names the
// order (and part), not the event, so a later event of the same order
// still showing the status must find it: kept for longer than an order
// stays open (a year), not only the stream's day of redelivery.
const Keep = 366 * 24 * time.Hour

// Deps are the notifications' collaborators.
type Deps struct {
	Store  Store
	Sender mail.Sender
	// Records keep the once-records (the idempotency store).
	Records idempotency.Store
	// From is the sender's address ("": the Sender's default).
	From   string
	Now    func() time.Time
	Logger *slog.Logger
}

func (d Deps) once() worker.Once {
	return worker.Once{Store: d.Records, Lock: Lock, Keep: Keep, Now: d.Now, Logger: d.Logger}
}

// Consumer is the relay consumer that mails what the order events call
// for.
type Consumer struct{ d Deps }

// NewConsumer returns the consumer; Now may be nil for the wall clock,
// Logger nil for slog.Default().
func NewConsumer(d Deps) *Consumer {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = d.Logger.With("consumer", ConsumerName)
	return &Consumer{d: d}
}

// Name is the consumer's name.
func (c *Consumer) Name() string { return ConsumerName }

// Consume mails what one event calls for: a bookstore application's
// decision, its applicant's email (applications.go); events other than
// those and an order's call for nothing. Each email is sent under its own once-record, so an
// event retried after one of its emails failed sends only the others.
// What an event's snapshot shows is read as:
//   - the order confirmed: the buyer's confirmation;
//   - a part confirmed: the store's new-order email (or digest entry);
//   - a part shipped: the shipped notice (with its tracking);
//   - a part ready for pickup: the pickup notice.
//
// A later snapshot still showing a status finds the email's record done.
func (c *Consumer) Consume(ctx context.Context, ev events.Event) error {
	if ev.Type == applications.DecidedEvent.Type {
		return c.applicationMail(ctx, ev)
	}
	if ev.Type != orders.CreatedEvent.Type && ev.Type != orders.UpdatedEvent.Type {
		return nil
	}
	var o orders.Data
	if err := json.Unmarshal(ev.Data, &o); err != nil {
		return fmt.Errorf("read the order of event %s: %w", ev.ID, err)
	}
	var errs []error
	if o.Status == orders.Confirmed {
		errs = append(errs, c.buyerMail(ctx, ev, o, KindConfirmation, nil))
	}
	for i := range o.Fulfilment {
		p := &o.Fulfilment[i]
		switch p.Status {
		case orders.Confirmed:
			errs = append(errs, c.storeNewOrder(ctx, ev, o, p))
		case orders.Shipped:
			errs = append(errs, c.buyerMail(ctx, ev, o, KindShipped, p))
		case orders.ReadyForPickup:
			errs = append(errs, c.buyerMail(ctx, ev, o, KindReadyForPickup, p))
		}
	}
	return errors.Join(errs...)
}

// buyerMail sends one of the buyer's emails about o (part: about that
// store's part).
func (c *Consumer) buyerMail(ctx context.Context, ev events.Event, o orders.Data, kind string, part *orders.PartData) error {
	to, err := c.d.Store.UserEmail(ctx, o.UserID)
	if err != nil {
		return fmt.Errorf("%s of order %s: read the buyer: %w", kind, o.ID, err)
	}
	if to == "" {
		c.d.Logger.Info("email: the buyer has no email (a guest, or gone): not sent", "kind", kind, "orderId", o.ID)
		return nil
	}
	about := o.ID
	if part != nil {
		about += ":" + part.StoreID
	}
	return c.send(ctx, ev.ID, kind, about, to, OrderMailOf(o, part), nil)
}

// storeNewOrder tells a store of its confirmed part: at once, as an
// entry of its daily digest, or not at all, by its settings.
func (c *Consumer) storeNewOrder(ctx context.Context, ev events.Event, o orders.Data, p *orders.PartData) error {
	r, err := c.d.Store.StoreRecipient(ctx, p.StoreID)
	if errors.Is(err, ErrNoStore) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("new order %s: read store %s: %w", o.ID, p.StoreID, err)
	}
	switch r.Settings.NewOrderEmail {
	case Off:
		return nil
	case Daily:
		e := DigestEntryOf(o, p, ev.Time)
		return c.d.once().Do(ctx, onceKey(kindDigestEntry, o.ID+":"+p.StoreID, p.StoreID), ev.ID, func(ctx context.Context) error {
			return c.d.Store.AddDigestEntry(ctx, e)
		})
	}
	if r.Email == "" {
		c.d.Logger.Warn("email: the store has no address: not sent", "kind", KindStoreNewOrder, "storeId", p.StoreID)
		return nil
	}
	return c.send(ctx, ev.ID, KindStoreNewOrder, o.ID+":"+p.StoreID, r.Email, OrderMailOf(o, p), nil)
}

// DigestEntryOf is p's entry in its store's digest: of the day the order
// was confirmed (UTC), else of the event's.
func DigestEntryOf(o orders.Data, p *orders.PartData, at time.Time) DigestEntry {
	if o.ConfirmedAt != nil {
		at = *o.ConfirmedAt
	}
	n := 0
	for _, it := range itemsOf(o, p.StoreID) {
		n += it.Quantity
	}
	return DigestEntry{StoreID: p.StoreID, Day: Day(at), OrderID: o.ID, OrderNumber: o.OrderNumber, Items: n,
		TotalCents: p.TotalCents, Fulfilment: string(p.Fulfilment), At: at.UTC()}
}

// Day is t's UTC day, YYYY-MM-DD: a digest's.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// onceKey is an email's once-record key: "mail:<kind>:<about>:<recipient>"
// (about: the order, "<order>:<store>" for a part, "<store>:<day>" for
// a digest). The recipient is part of it: a store that changes its
// address gets the email it has not had yet at the new one.
func onceKey(kind, about, recipient string) string {
	return "mail:" + kind + ":" + about + ":" + recipient
}

// send renders kind with data and sends it to to, once for the key of
// kind, about and to. A suppressed address is skipped (and the record
// completed: it is not retried); any other failure is returned, which
// releases the record for the event's retry.
func (c *Consumer) send(ctx context.Context, by, kind, about, to string, data any, headers map[string]string) error {
	return sendOnce(ctx, c.d, by, kind, about, to, data, headers)
}

func sendOnce(ctx context.Context, d Deps, by, kind, about, to string, data any, headers map[string]string) error {
	return d.once().Do(ctx, onceKey(kind, about, to), by, func(ctx context.Context) error {
		suppressed, err := d.Sender.Suppressed(ctx, to)
		if err != nil {
			return fmt.Errorf("%s about %s: check the suppression list: %w", kind, about, err)
		}
		if suppressed {
			d.Logger.Warn("email: the address is suppressed (it bounced or complained): not sent", "kind", kind, "about", about)
			return nil
		}
		r, err := Render(kind, data)
		if err != nil {
			return err
		}
		id, err := d.Sender.Send(ctx, mail.Message{From: d.From, To: to, Subject: r.Subject, Text: r.Text, HTML: r.HTML, Headers: headers, Tag: kind})
		if errors.Is(err, mail.ErrSuppressed) {
			d.Logger.Warn("email: the address is suppressed (it bounced or complained): not sent", "kind", kind, "about", about)
			return nil
		}
		if err != nil {
			return fmt.Errorf("send %s about %s: %w", kind, about, err)
		}
		d.Logger.Info("email: sent", "kind", kind, "about", about, "messageId", id)
		return nil
	})
}
