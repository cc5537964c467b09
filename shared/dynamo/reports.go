package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/guregu/dynamo/v2"
)

// Reports stores reports for moderation.
type Reports struct{ t *table }

var _ reports.Storer = (*Reports)(nil)

// reportItem is a report as stored (ReportKey), queued on GSI1 by status,
// oldest first (reportQueue), for the moderation tools to come.
type reportItem struct {
	PK         string    `dynamo:"PK"`
	SK         string    `dynamo:"SK"`
	GSI1PK     string    `dynamo:"GSI1PK"`
	GSI1SK     string    `dynamo:"GSI1SK"`
	Type       string    `dynamo:"type"`
	ID         string    `dynamo:"id"`
	ReporterID string    `dynamo:"reporterId"`
	TargetType string    `dynamo:"targetType"`
	TargetID   string    `dynamo:"targetId"`
	LineID     string    `dynamo:"lineId,omitempty"`
	Reason     string    `dynamo:"reason"`
	Status     string    `dynamo:"status"`
	CreatedAt  time.Time `dynamo:"createdAt"`
}

// reportedItem is what a report checks of its target: the target's key,
// the attribute naming its author (a club's is its host) and the error
// meaning it is missing.
func reportedItem(t reports.Target) (k Key, author string, notFound error) {
	switch t.Type {
	case reports.TargetReply:
		return ReplyKey(t.LineID, t.ID), "userId", lines.ErrReplyNotFound
	case reports.TargetReview:
		return ReviewKey(t.ID), "userId", reviews.ErrNotFound
	case reports.TargetClub:
		return ClubKey(t.ID), "hostId", clubs.ErrNotFound
	default:
		return LineKey(t.ID), "userId", lines.ErrNotFound
	}
}

// CreateReport puts the report (absent: one per reporter and target) in
// one TransactWriteItems with a condition check that the target exists
// and is not the reporter's own. Only when that check fails is the target
// read, to tell a missing target (404) from one's own (400). Errors: the
// target's not-found error, reports.ErrOwnContent,
// reports.ErrAlreadyReported.
func (s *Reports) CreateReport(ctx context.Context, r *reports.Report) error {
	k := ReportKey(r.Target, r.ReporterID)
	q := reportQueue(r.Status)
	it := reportItem{
		PK: k.PK, SK: k.SK, GSI1PK: q.pk, GSI1SK: timeIDKey(r.CreatedAt, r.ID), Type: typeReport,
		ID: r.ID, ReporterID: r.ReporterID, TargetType: string(r.Target.Type), TargetID: r.Target.ID,
		LineID: r.Target.LineID, Reason: r.Reason, Status: r.Status, CreatedAt: r.CreatedAt.UTC(),
	}
	errRefused := errors.New("target missing or the reporter's own")
	target, authorAttr, notFound := reportedItem(r.Target)
	err := s.t.tx().
		check(s.t.check(target).If("attribute_exists(PK) AND $ <> ?", authorAttr, r.ReporterID), errRefused).
		put(s.t.put(it).If("attribute_not_exists(PK)"), reports.ErrAlreadyReported).
		run(ctx)
	if errors.Is(err, errRefused) {
		var author map[string]any
		err := s.t.get(target).Project(authorAttr).Consistent(true).One(ctx, &author)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, notFound)
		case err != nil:
			return fmt.Errorf("read reported %s %s: %w", r.Target.Type, r.Target.ID, err)
		}
		return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, reports.ErrOwnContent)
	}
	if err != nil {
		return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, err)
	}
	return nil
}
