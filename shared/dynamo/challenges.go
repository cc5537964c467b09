package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
)

// Challenges stores reading challenges, their participants and the
// directories GET /challenges reads.
type Challenges struct{ t *table }

var _ challenges.Storer = (*Challenges)(nil)

// challengeItem is a challenge as stored (ChallengeKey).
// participantCount changes only with ADD, in the transactions that add
// or remove a participant.
type challengeItem struct {
	PK               string    `dynamo:"PK"`
	SK               string    `dynamo:"SK"`
	Type             string    `dynamo:"type"`
	ID               string    `dynamo:"id"`
	Name             string    `dynamo:"name"`
	Description      string    `dynamo:"description"`
	Goal             int       `dynamo:"goal"`
	StartDate        string    `dynamo:"startDate"`
	EndDate          string    `dynamo:"endDate"`
	ParticipantCount int       `dynamo:"participantCount"`
	HostID           string    `dynamo:"hostId"`
	StoreID          string    `dynamo:"storeId,omitempty"`
	CreatedAt        time.Time `dynamo:"createdAt"`
	UpdatedAt        time.Time `dynamo:"updatedAt"`
}

// participantItem is a reader's part (ParticipantKey), listed on GSI1
// under its challenge by progress (progressKey) and on GSI2 under its
// user (userChallenges).
type participantItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	GSI1PK      string    `dynamo:"GSI1PK"`
	GSI1SK      string    `dynamo:"GSI1SK"`
	GSI2PK      string    `dynamo:"GSI2PK"`
	GSI2SK      string    `dynamo:"GSI2SK"`
	Type        string    `dynamo:"type"`
	ChallengeID string    `dynamo:"challengeId"`
	UserID      string    `dynamo:"userId"`
	Progress    int       `dynamo:"progress"`
	JoinedAt    time.Time `dynamo:"joinedAt"`
	UpdatedAt   time.Time `dynamo:"updatedAt"`
}

func toChallengeItem(c *challenges.Challenge) challengeItem {
	k := ChallengeKey(c.ID)
	return challengeItem{
		PK: k.PK, SK: k.SK, Type: typeChallenge, ID: c.ID, Name: c.Name, Description: c.Description,
		Goal: c.Goal, StartDate: c.StartDate, EndDate: c.EndDate, ParticipantCount: c.ParticipantCount,
		HostID: c.HostID, StoreID: c.StoreID, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
}

func (it challengeItem) toChallenge() *challenges.Challenge {
	return &challenges.Challenge{
		ID: it.ID, Name: it.Name, Description: it.Description, Goal: it.Goal, StartDate: it.StartDate,
		EndDate: it.EndDate, ParticipantCount: it.ParticipantCount, HostID: it.HostID, StoreID: it.StoreID,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func toParticipantItem(p *challenges.Participant) participantItem {
	k := ParticipantKey(p.ChallengeID, p.UserID)
	return participantItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: challengeParticipants(p.ChallengeID).pk, GSI1SK: progressKey(p.Progress, p.UpdatedAt, p.UserID),
		GSI2PK: userChallenges(p.UserID).pk, GSI2SK: timeIDKey(p.JoinedAt, p.ChallengeID),
		Type: typeParticipant, ChallengeID: p.ChallengeID, UserID: p.UserID, Progress: p.Progress,
		JoinedAt: p.JoinedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
	}
}

func (it participantItem) toParticipant() *challenges.Participant {
	return &challenges.Participant{
		ChallengeID: it.ChallengeID, UserID: it.UserID, Progress: it.Progress, JoinedAt: it.JoinedAt, UpdatedAt: it.UpdatedAt,
	}
}

func challengeRef(c *challenges.Challenge) dirRef {
	return dirRef{id: c.ID, hostID: c.HostID, storeID: c.StoreID, createdAt: c.CreatedAt}
}

// CreateChallenge writes the challenge, its host's participation and its
// directory entries with their counts in one TransactWriteItems
// (createListed; a store's challenge also checks that its store is not
// being deleted). Errors: storehost.ErrStoreNotFound.
func (s *Challenges) CreateChallenge(ctx context.Context, c *challenges.Challenge, host *challenges.Participant) error {
	if err := s.t.createListed(ctx, toChallengeItem(c), toParticipantItem(host), challengeDirs(c), challengeRef(c)); err != nil {
		return fmt.Errorf("create challenge %s: %w", c.ID, err)
	}
	return nil
}

// GetChallenge reads a challenge, strongly consistent. Errors:
// challenges.ErrNotFound.
func (s *Challenges) GetChallenge(ctx context.Context, id string) (*challenges.Challenge, error) {
	return getOne(ctx, s.t, ChallengeKey(id), challengeItem.toChallenge, challenges.ErrNotFound, "challenge "+id)
}

// GetChallenges reads challenges by id with BatchGetItem.
func (s *Challenges) GetChallenges(ctx context.Context, ids []string) (map[string]*challenges.Challenge, error) {
	out := make(map[string]*challenges.Challenge, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	items, err := batchAll[challengeItem](ctx, s.t.batch(keysOf(ids, ChallengeKey)...))
	if err != nil {
		return nil, fmt.Errorf("batch get %d challenges: %w", len(ids), err)
	}
	for _, it := range items {
		out[it.ID] = it.toChallenge()
	}
	return out, nil
}

// UpdateChallenge is one UpdateItem conditional on the challenge
// existing, being hostID's and, for a date changed alone, the stored
// other date keeping the period in order (dates compare as text); it
// returns the new item. Only when the condition fails is the challenge
// read, to tell 404 from 403 from 400. Errors: challenges.ErrNotFound,
// challenges.ErrNotHost, challenges.ErrDateOrder.
func (s *Challenges) UpdateChallenge(ctx context.Context, id, hostID string, e challenges.UpdateChallenge, now time.Time) (*challenges.Challenge, error) {
	upd := s.t.update(ChallengeKey(id)).Set("updatedAt", now.UTC())
	if e.Name != nil {
		upd = upd.Set("name", *e.Name)
	}
	if e.Description != nil {
		upd = upd.Set("description", *e.Description)
	}
	if e.Goal != nil {
		upd = upd.Set("goal", *e.Goal)
	}
	if e.StartDate != nil {
		upd = upd.Set("startDate", *e.StartDate)
	}
	if e.EndDate != nil {
		upd = upd.Set("endDate", *e.EndDate)
	}
	switch {
	case e.StartDate != nil && e.EndDate == nil:
		upd = upd.If("attribute_exists(PK) AND hostId = ? AND endDate >= ?", hostID, *e.StartDate)
	case e.EndDate != nil && e.StartDate == nil:
		upd = upd.If("attribute_exists(PK) AND hostId = ? AND startDate <= ?", hostID, *e.EndDate)
	default:
		upd = upd.If("attribute_exists(PK) AND hostId = ?", hostID)
	}
	var it challengeItem
	err := upd.Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		c, err := s.GetChallenge(ctx, id)
		switch {
		case err != nil:
			return nil, err
		case c.HostID != hostID:
			return nil, fmt.Errorf("update challenge %s: %w", id, challenges.ErrNotHost)
		}
		return nil, fmt.Errorf("update challenge %s: %w", id, challenges.ErrDateOrder)
	}
	if err != nil {
		return nil, fmt.Errorf("update challenge %s: %w", id, err)
	}
	return it.toChallenge(), nil
}

// DeleteChallenge removes the challenge, conditional on its store being
// the one its directory entries were computed from, and the entries with
// their counts, in one TransactWriteItems. Errors: challenges.ErrChanged
// (gone, or let go by its store since read).
func (s *Challenges) DeleteChallenge(ctx context.Context, c *challenges.Challenge) error {
	del := s.t.del(ChallengeKey(c.ID)).If("attribute_exists(PK)")
	if err := s.t.deleteListed(ctx, del, challenges.ErrChanged, challengeDirs(c), challengeRef(c)); err != nil {
		return fmt.Errorf("delete challenge %s: %w", c.ID, err)
	}
	return nil
}

// PurgeChallenge removes a deleted challenge's participants a bounded
// page at a time (deletePrefix).
func (s *Challenges) PurgeChallenge(ctx context.Context, id string) error {
	if err := s.t.deletePrefix(ctx, ChallengeKey(id).PK, participantPrefix); err != nil {
		return fmt.Errorf("purge challenge %s: %w", id, err)
	}
	return nil
}

// ListChallenges reads an offset page of a directory beside its count,
// then the page's challenges in one BatchGetItem.
func (s *Challenges) ListChallenges(ctx context.Context, storeID string, o page.Offset) ([]*challenges.Challenge, int, error) {
	entries, total, err := s.t.readDir(ctx, ChallengeDir(storeID), o)
	if err != nil {
		return nil, 0, err
	}
	cs, err := s.listed(ctx, entries)
	if err != nil {
		return nil, 0, err
	}
	return cs, total, nil
}

// PageChallenges reads a cursor page of a directory (consistent, newest
// first), then the page's challenges in one BatchGetItem.
func (s *Challenges) PageChallenges(ctx context.Context, storeID string, c page.Cursor) (page.Page[*challenges.Challenge], error) {
	p, err := queryPage[dirEntryItem](ctx, s.t, dirEntries(ChallengeDir(storeID)), c)
	if err != nil {
		return page.Page[*challenges.Challenge]{}, err
	}
	cs, err := s.listed(ctx, p.Items)
	if err != nil {
		return page.Page[*challenges.Challenge]{}, err
	}
	return page.Page[*challenges.Challenge]{Items: cs, Next: p.Next}, nil
}

// listed reads the challenges of directory entries in one BatchGetItem,
// in the entries' order (one deleted since is left out).
func (s *Challenges) listed(ctx context.Context, entries []dirEntryItem) ([]*challenges.Challenge, error) {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	byID, err := s.GetChallenges(ctx, ids)
	if err != nil {
		return nil, err
	}
	return inOrder(ids, byID), nil
}

// releaseStore lets every challenge of a store being deleted go: each
// stays, its host's, no longer the store's (docs/decisions.md, "Deleting
// a store"). No challenge can join the store's directory meanwhile
// (CreateChallenge checks that the store is not being deleted).
func (s *Challenges) releaseStore(ctx context.Context, storeID string) error {
	return eachPage(ctx, s.t, dirEntries(ChallengeDir(storeID)), func(ctx context.Context, entries []dirEntryItem) error {
		return eachItem(ctx, entries, func(ctx context.Context, e dirEntryItem) error { return s.releaseChallenge(ctx, e.ID, storeID) })
	})
}

// releaseChallenge detaches one challenge from storeID in one
// transaction: the challenge loses its storeId (conditional on having
// it), its entry leaves the store's directory with its count, and its
// entry in the directory of every challenge is rewritten without the
// store. A challenge gone, or no longer the store's, is done.
func (s *Challenges) releaseChallenge(ctx context.Context, id, storeID string) error {
	err := optimistic.Retry(maxReleaseAttempts, func(int) error {
		c, err := s.GetChallenge(ctx, id)
		if errors.Is(err, challenges.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.StoreID != storeID {
			return nil
		}
		next := *c
		next.StoreID, next.UpdatedAt = "", s.t.now().UTC()
		x := s.t.tx().update(s.t.update(ChallengeKey(id)).Remove("storeId").Set("updatedAt", next.UpdatedAt).
			If("attribute_exists(PK) AND storeId = ?", storeID), challenges.ErrChanged)
		s.t.moveEntries(x, challengeDirs(c), challengeDirs(&next), challengeRef(c), challengeRef(&next))
		return x.run(ctx)
	}, challenges.ErrChanged)
	if err != nil {
		return fmt.Errorf("release challenge %s from store %s: %w", id, storeID, err)
	}
	return nil
}

// GetParticipant reads a participant, strongly consistent. Errors:
// challenges.ErrParticipantNotFound.
func (s *Challenges) GetParticipant(ctx context.Context, challengeID, userID string) (*challenges.Participant, error) {
	return getOne(ctx, s.t, ParticipantKey(challengeID, userID), participantItem.toParticipant, challenges.ErrParticipantNotFound,
		"participant "+userID+" of challenge "+challengeID)
}

// Join adds one to participantCount (the challenge exists) and puts the
// participant if absent, in one TransactWriteItems. Errors:
// challenges.ErrNotFound, challenges.ErrAlreadyParticipant.
func (s *Challenges) Join(ctx context.Context, p *challenges.Participant) error {
	err := s.t.tx().
		update(s.t.update(ChallengeKey(p.ChallengeID)).Add("participantCount", 1).If("attribute_exists(PK)"), challenges.ErrNotFound).
		put(s.t.put(toParticipantItem(p)).If("attribute_not_exists(PK)"), challenges.ErrAlreadyParticipant).
		run(ctx)
	if err != nil {
		return fmt.Errorf("join challenge %s: %w", p.ChallengeID, err)
	}
	return nil
}

// Leave subtracts one from participantCount, conditional on the
// challenge existing and userID not hosting it, and deletes the
// participant if there, in one TransactWriteItems; only when the
// challenge's condition fails is it read, to tell 404 from the host.
// Errors: challenges.ErrNotFound, challenges.ErrNotParticipant,
// challenges.ErrHostCannotLeave.
func (s *Challenges) Leave(ctx context.Context, challengeID, userID string) error {
	err := s.t.tx().
		update(s.t.update(ChallengeKey(challengeID)).Add("participantCount", -1).If("attribute_exists(PK) AND hostId <> ?", userID), errRefused).
		delete(s.t.del(ParticipantKey(challengeID, userID)).If("attribute_exists(PK)"), challenges.ErrNotParticipant).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetChallenge(ctx, challengeID); err != nil {
			return err
		}
		return fmt.Errorf("leave challenge %s: %w", challengeID, challenges.ErrHostCannotLeave)
	}
	if err != nil {
		return fmt.Errorf("leave challenge %s: %w", challengeID, err)
	}
	return nil
}

// SetProgress is one UpdateItem of the participant, conditional on it
// existing, moving its place in the progress order (GSI1SK) with it, and
// returning the new item. Only when the condition fails is the challenge
// read, to tell 404 from a reader who has not joined. Errors:
// challenges.ErrNotFound, challenges.ErrJoinFirst.
func (s *Challenges) SetProgress(ctx context.Context, challengeID, userID string, progress int, now time.Time) (*challenges.Participant, error) {
	var it participantItem
	err := s.t.update(ParticipantKey(challengeID, userID)).
		Set("progress", progress).
		Set("updatedAt", now.UTC()).
		Set(AttrGSI1SK, progressKey(progress, now, userID)).
		If("attribute_exists(PK)").
		Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		if _, err := s.GetChallenge(ctx, challengeID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("progress in challenge %s: %w", challengeID, challenges.ErrJoinFirst)
	}
	if err != nil {
		return nil, fmt.Errorf("progress of %s in challenge %s: %w", userID, challengeID, err)
	}
	return it.toParticipant(), nil
}

// ListParticipants reads a page of a challenge's participants, most
// books finished first (GSI1).
func (s *Challenges) ListParticipants(ctx context.Context, challengeID string, c page.Cursor) (page.Page[*challenges.Participant], error) {
	return queryMapped(ctx, s.t, challengeParticipants(challengeID), c, participantItem.toParticipant)
}

// ListUserChallenges reads a page of a user's participations, the latest
// joined first (GSI2).
func (s *Challenges) ListUserChallenges(ctx context.Context, userID string, c page.Cursor) (page.Page[*challenges.Participant], error) {
	return queryMapped(ctx, s.t, userChallenges(userID), c, participantItem.toParticipant)
}
