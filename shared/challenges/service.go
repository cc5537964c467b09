package challenges

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Storer is the storage of challenges and their participants.
// Implementations return the errors named on each method wrapped with
// context, never (nil, nil). Every join and leave changes the challenge's
// participantCount in the same transaction.
type Storer interface {
	// CreateChallenge stores the challenge, its host's participation and
	// its directory entries (the lists GET /challenges reads, with their
	// counts) in one transaction. Errors: storehost.ErrStoreNotFound (its
	// store's deletion has begun).
	CreateChallenge(ctx context.Context, c *Challenge, host *Participant) error
	// GetChallenge reads a challenge, strongly consistent. Errors:
	// ErrNotFound.
	GetChallenge(ctx context.Context, id string) (*Challenge, error)
	// GetChallenges reads challenges by id; unknown ids are absent.
	GetChallenges(ctx context.Context, ids []string) (map[string]*Challenge, error)
	// UpdateChallenge applies e if hostID hosts the challenge and the
	// period stays in order, and returns the challenge as stored
	// afterwards. Errors: ErrNotFound, ErrNotHost, ErrDateOrder.
	UpdateChallenge(ctx context.Context, id, hostID string, e UpdateChallenge, now time.Time) (*Challenge, error)
	// DeleteChallenge removes c and its directory entries in one
	// transaction, if it is still hosted for the store it was read with;
	// its participants stay until PurgeChallenge. Errors: ErrChanged
	// (gone or changed since read: read again).
	DeleteChallenge(ctx context.Context, c *Challenge) error
	// PurgeChallenge removes every participant of a challenge that no
	// longer exists, in bounded batches.
	PurgeChallenge(ctx context.Context, id string) error
	// ListChallenges reads an offset page of the challenges (a store's
	// when storeID is not ""), newest first, and their exact number.
	ListChallenges(ctx context.Context, storeID string, o page.Offset) ([]*Challenge, int, error)
	// PageChallenges reads a cursor page of the same directories, newest
	// first (a store's list). Errors: page.ErrInvalidCursor.
	PageChallenges(ctx context.Context, storeID string, c page.Cursor) (page.Page[*Challenge], error)

	// GetParticipant reads userID's part in a challenge, strongly
	// consistent. Errors: ErrParticipantNotFound.
	GetParticipant(ctx context.Context, challengeID, userID string) (*Participant, error)
	// Join adds p to its challenge. Errors: ErrNotFound,
	// ErrAlreadyParticipant.
	Join(ctx context.Context, p *Participant) error
	// Leave removes userID's part. Errors: ErrNotFound,
	// ErrNotParticipant, ErrHostCannotLeave.
	Leave(ctx context.Context, challengeID, userID string) error
	// SetProgress records userID's books finished and returns the
	// participant after. Errors: ErrNotFound, ErrJoinFirst.
	SetProgress(ctx context.Context, challengeID, userID string, progress int, now time.Time) (*Participant, error)
	// ListParticipants reads a page of a challenge's participants, most
	// books finished first (ties: who got there first). Errors:
	// page.ErrInvalidCursor.
	ListParticipants(ctx context.Context, challengeID string, c page.Cursor) (page.Page[*Participant], error)
	// ListUserChallenges reads a page of userID's participations, the
	// most recently joined first. Errors: page.ErrInvalidCursor.
	ListUserChallenges(ctx context.Context, userID string, c page.Cursor) (page.Page[*Participant], error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Users  posts.Users  // a list's owner by username
	Briefs posts.Reader // hosts and participants
	Stores storehost.Directory
	// CreatorTiers are the tiers that may create challenges
	// (configuration).
	CreatorTiers []users.Tier
	Now          func() time.Time
}

// Service implements challenges.
type Service struct {
	d Deps
}

// NewService returns the challenges service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Stores == nil {
		d.Stores = storehost.None{}
	}
	return &Service{d: d}
}

// View is a challenge as its single view shows it.
type View struct {
	Challenge   *Challenge
	Host        *users.User      // nil when the account is gone
	Store       *storehost.Brief // nil when not store-hosted
	Participant *Participant     // the viewer's part, nil when none
}

// ParticipantView is a participant with their account (nil when gone).
type ParticipantView struct {
	*Participant
	User *users.User
}

// Participation is a challenge of a reader's list with the reader's part.
type Participation struct {
	Challenge   *Challenge
	Participant *Participant
}

// Create makes a challenge hosted by caller, who is its first
// participant. Errors: ValidationError, ErrTier,
// storehost.ErrStoreNotFound, storehost.ErrNotStoreStaff.
func (s *Service) Create(ctx context.Context, caller *users.User, in NewChallenge) (*View, error) {
	if !slices.Contains(s.d.CreatorTiers, caller.Tier) {
		return nil, ErrTier
	}
	in, f := checkNew(in)
	storeID, ok := ids.Optional(in.StoreID)
	if !ok {
		f.Add("storeId", "must be a UUID or null")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	var store *storehost.Brief
	if storeID != "" {
		b, err := s.d.Stores.Host(ctx, storeID, caller.ID)
		if err != nil {
			return nil, fmt.Errorf("host for store %s: %w", storeID, err)
		}
		store = &b
	}
	now := s.d.Now().UTC()
	c := &Challenge{
		ID: ids.New(), Name: in.Name, Description: in.Description, Goal: *in.Goal,
		StartDate: in.StartDate, EndDate: in.EndDate, ParticipantCount: 1,
		HostID: caller.ID, StoreID: storeID, CreatedAt: now, UpdatedAt: now,
	}
	host := &Participant{ChallengeID: c.ID, UserID: caller.ID, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.CreateChallenge(ctx, c, host); err != nil {
		return nil, fmt.Errorf("create challenge: %w", err)
	}
	return &View{Challenge: c, Host: caller, Store: store, Participant: host}, nil
}

// Get returns a challenge with its host and the viewer's part
// (viewerID "" when anonymous). Errors: ErrNotFound.
func (s *Service) Get(ctx context.Context, viewerID, id string) (*View, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var (
		c *Challenge
		p *Participant
		g errgroup.Group
	)
	g.Go(func() (err error) { c, err = s.d.Store.GetChallenge(ctx, id); return err })
	g.Go(func() (err error) { p, err = s.participant(ctx, id, viewerID); return err })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get challenge %s: %w", id, err)
	}
	var (
		us     map[string]*users.User
		stores map[string]storehost.Brief
	)
	g.Go(func() (err error) { us, _, err = s.d.Briefs.GetUsersAndBooks(ctx, []string{c.HostID}, nil); return err })
	if c.StoreID != "" {
		g.Go(func() (err error) { stores, err = s.d.Stores.Briefs(ctx, []string{c.StoreID}); return err })
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get challenge %s: %w", id, err)
	}
	v := &View{Challenge: c, Host: us[c.HostID], Participant: p}
	if b, ok := stores[c.StoreID]; ok {
		v.Store = &b
	}
	return v, nil
}

// participant reads viewerID's part: nil when anonymous or not taking
// part.
func (s *Service) participant(ctx context.Context, id, viewerID string) (*Participant, error) {
	if viewerID == "" {
		return nil, nil
	}
	p, err := s.d.Store.GetParticipant(ctx, id, viewerID)
	if errors.Is(err, ErrParticipantNotFound) {
		return nil, nil
	}
	return p, err
}

// List returns an offset page of challenges (a store's when storeID is
// given), newest first, and their exact number. Errors: ValidationError.
func (s *Service) List(ctx context.Context, storeID string, o page.Offset) ([]*Challenge, int, error) {
	if storeID != "" {
		id, ok := ids.Parse(storeID)
		if !ok {
			return nil, 0, apperr.Validation("storeId must be a UUID", map[string]string{"storeId": "must be a UUID"})
		}
		storeID = id
	}
	cs, total, err := s.d.Store.ListChallenges(ctx, storeID, o)
	if err != nil {
		return nil, 0, fmt.Errorf("list challenges: %w", err)
	}
	return cs, total, nil
}

// Update changes a challenge on behalf of callerID, its host. Errors:
// ValidationError, ErrNotFound, ErrNotHost, ErrDateOrder.
func (s *Service) Update(ctx context.Context, callerID, id string, e UpdateChallenge) (*Challenge, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	e, err := checkEdit(e)
	if err != nil {
		return nil, err
	}
	c, err := s.d.Store.UpdateChallenge(ctx, id, callerID, e, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update challenge %s: %w", id, err)
	}
	return c, nil
}

// Delete removes a challenge on behalf of callerID, its host, then its
// participants in bounded batches; lines posted in it stay
// (decisions.md). A repeated DELETE of a challenge whose participants a
// failure left behind removes them before answering 404. Errors:
// ErrNotFound, ErrNotHost.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	return optimistic.Delete[*Challenge]{
		What: "challenge", Children: "participants",
		Get: s.d.Store.GetChallenge, NotFound: ErrNotFound,
		Allow: func(c *Challenge) error {
			if c.HostID != callerID {
				return ErrNotHost
			}
			return nil
		},
		// Changed: deleted meanwhile, or its store let it go: read again.
		Remove: s.d.Store.DeleteChallenge, Changed: ErrChanged, Attempts: maxAttempts,
		Purge: s.d.Store.PurgeChallenge,
	}.Run(ctx, id)
}

// maxAttempts bounds the reads and writes of a deletion that lost to a
// concurrent change of the challenge's store.
const maxAttempts = 3

// ListByStore returns a page of the challenges hosted for the store with
// slug, newest first. Once the slug is resolved, the page is read beside
// the store's brief, which says whether the store is live. Errors:
// storehost.ErrStoreNotFound, page.ErrInvalidCursor.
func (s *Service) ListByStore(ctx context.Context, slug string, c page.Cursor) (page.Page[*Challenge], error) {
	storeID, err := s.d.Stores.StoreID(ctx, slug)
	if err != nil {
		return page.Page[*Challenge]{}, err
	}
	var (
		p      page.Page[*Challenge]
		briefs map[string]storehost.Brief
		g      errgroup.Group
	)
	g.Go(func() (err error) { p, err = s.d.Store.PageChallenges(ctx, storeID, c); return err })
	g.Go(func() (err error) { briefs, err = s.d.Stores.Briefs(ctx, []string{storeID}); return err })
	if err := g.Wait(); err != nil {
		return page.Page[*Challenge]{}, fmt.Errorf("challenges of store %s: %w", storeID, err)
	}
	if _, ok := briefs[storeID]; !ok {
		// Its deletion has begun: it reads as gone.
		return page.Page[*Challenge]{}, storehost.ErrStoreNotFound
	}
	return p, nil
}

// Join makes callerID a participant. Errors: ErrNotFound,
// ErrAlreadyParticipant.
func (s *Service) Join(ctx context.Context, callerID, id string) (*Participant, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	now := s.d.Now().UTC()
	p := &Participant{ChallengeID: id, UserID: callerID, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.Join(ctx, p); err != nil {
		return nil, fmt.Errorf("join challenge %s: %w", id, err)
	}
	return p, nil
}

// Leave ends callerID's part. Errors: ErrNotFound, ErrNotParticipant,
// ErrHostCannotLeave.
func (s *Service) Leave(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	if err := s.d.Store.Leave(ctx, id, callerID); err != nil {
		return fmt.Errorf("leave challenge %s: %w", id, err)
	}
	return nil
}

// SetProgress records the books callerID finished toward the goal and
// returns their part and the goal. Errors: ValidationError, ErrNotFound,
// ErrJoinFirst.
func (s *Service) SetProgress(ctx context.Context, callerID, id string, progress *int) (*Participant, *Challenge, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, nil, ErrNotFound
	}
	switch {
	case progress == nil:
		return nil, nil, apperr.Validation("Invalid request", map[string]string{"progress": "is required"})
	case CheckProgress(*progress) != "":
		return nil, nil, apperr.Validation("Invalid request", map[string]string{"progress": CheckProgress(*progress)})
	}
	var (
		p *Participant
		c *Challenge
		g errgroup.Group
	)
	// The challenge is read beside the write for the goal of the answer.
	g.Go(func() (err error) { c, err = s.d.Store.GetChallenge(ctx, id); return err })
	g.Go(func() (err error) {
		p, err = s.d.Store.SetProgress(ctx, id, callerID, *progress, s.d.Now().UTC())
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, fmt.Errorf("progress in challenge %s: %w", id, err)
	}
	return p, c, nil
}

// ListParticipants returns a page of a challenge's participants, most books
// finished first, with their accounts, and the challenge (for its goal).
// Errors: ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListParticipants(ctx context.Context, id string, c page.Cursor) (page.Page[ParticipantView], *Challenge, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return page.Page[ParticipantView]{}, nil, ErrNotFound
	}
	var (
		ch *Challenge
		p  page.Page[*Participant]
		g  errgroup.Group
	)
	g.Go(func() (err error) { ch, err = s.d.Store.GetChallenge(ctx, id); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListParticipants(ctx, id, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[ParticipantView]{}, nil, fmt.Errorf("participants of challenge %s: %w", id, err)
	}
	us, err := posts.Accounts(ctx, s.d.Briefs, p.Items, func(it *Participant) string { return it.UserID })
	if err != nil {
		return page.Page[ParticipantView]{}, nil, fmt.Errorf("participants of challenge %s: %w", id, err)
	}
	return page.Map(p, func(it *Participant) ParticipantView { return ParticipantView{Participant: it, User: us[it.UserID]} }), ch, nil
}

// ListJoined returns a page of the challenges callerID takes part in, the most
// recently joined first.
func (s *Service) ListJoined(ctx context.Context, callerID string, c page.Cursor) (page.Page[Participation], error) {
	return s.participations(ctx, callerID, c)
}

// ListByUser returns a page of the challenges the account named username
// takes part in. Errors: users.ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListByUser(ctx context.Context, username string, c page.Cursor) (page.Page[Participation], error) {
	userID, err := posts.OwnerID(ctx, s.d.Users, username)
	if err != nil {
		return page.Page[Participation]{}, err
	}
	return s.participations(ctx, userID, c)
}

// participations reads a page of userID's parts and their challenges,
// leaving out parts whose challenge is gone (a delete that stopped half
// way).
func (s *Service) participations(ctx context.Context, userID string, c page.Cursor) (page.Page[Participation], error) {
	p, err := s.d.Store.ListUserChallenges(ctx, userID, c)
	if err != nil {
		return page.Page[Participation]{}, fmt.Errorf("challenges of user %s: %w", userID, err)
	}
	challengeIDs := make([]string, len(p.Items))
	for i, it := range p.Items {
		challengeIDs[i] = it.ChallengeID
	}
	cs, err := s.d.Store.GetChallenges(ctx, challengeIDs)
	if err != nil {
		return page.Page[Participation]{}, fmt.Errorf("challenges of user %s: %w", userID, err)
	}
	out := page.Page[Participation]{Items: []Participation{}, Next: p.Next}
	for _, it := range p.Items {
		if ch := cs[it.ChallengeID]; ch != nil {
			out.Items = append(out.Items, Participation{Challenge: ch, Participant: it})
		}
	}
	return out, nil
}
