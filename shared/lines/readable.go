package lines

import "context"

// Readable is nil when viewerID may read the line id, by the rule GET
// /v1/lines/{id} applies (canSee: a private club's line is its members'
// and its author's). It is for a domain that answers about a line and
// must not confirm it to a reader who may not see it (reports); it reads
// only through the service's Store and Clubs, so such a domain builds the
// service with those alone. Errors: ErrNotFound (also for an id that is
// not a UUID), clubs.ErrPrivate.
func (s *Service) Readable(ctx context.Context, viewerID, id string) error {
	return s.mustSee(ctx, viewerID, id)
}
