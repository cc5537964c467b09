package challengesapi

import (
	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Requests.

// createRequest is the body of POST /v1/challenges.
type createRequest struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Goal        *int    `json:"goal"`
	StartDate   string  `json:"startDate"`
	EndDate     string  `json:"endDate"`
	StoreID     *string `json:"storeId,omitempty"`
}

// updateRequest is the body of PUT /v1/challenges/{id}: a field left out
// (or null) stays.
type updateRequest struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	Goal        *int    `json:"goal,omitempty"`
	StartDate   *string `json:"startDate,omitempty"`
	EndDate     *string `json:"endDate,omitempty"`
}

// progressRequest is the body of PUT /v1/challenges/{id}/progress: the
// books finished so far (a total, not an increment, so a retry changes
// nothing).
type progressRequest struct {
	Progress *int `json:"progress"`
}

// Answers.

// challenge is the spec's Challenge (as listed), with updatedAt.
type challenge struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	Description      string  `json:"description"`
	Goal             int     `json:"goal"`
	StartDate        string  `json:"startDate"`
	EndDate          string  `json:"endDate"`
	ParticipantCount int     `json:"participantCount"`
	HostID           string  `json:"hostId"`
	StoreID          *string `json:"storeId"`
	CreatedAt        string  `json:"createdAt"`
	UpdatedAt        string  `json:"updatedAt"`
}

// challengeView is the single view: the challenge with its host, its
// store and the caller's part.
type challengeView struct {
	challenge
	Host          *userjson.Brief  `json:"host"`
	Store         *storejson.Brief `json:"store"`
	IsParticipant bool             `json:"isParticipant"`
	// Progress is the caller's books finished, null when not taking part.
	Progress *int `json:"progress"`
}

// challengesPage is the answer of GET /challenges.
type challengesPage struct {
	Challenges []challenge `json:"challenges"`
	httpapi.OffsetMeta
}

// participation is a reader's part as join and progress answer it.
type participation struct {
	ChallengeID string `json:"challengeId"`
	UserID      string `json:"userId"`
	Progress    int    `json:"progress"`
	JoinedAt    string `json:"joinedAt"`
	UpdatedAt   string `json:"updatedAt"`
}

// joinedChallenge is the answer of POST /challenges/{id}/join.
type joinedChallenge struct {
	Success       bool          `json:"success"`
	Participation participation `json:"participation"`
}

// progressed is the answer of PUT /challenges/{id}/progress.
type progressed struct {
	Success       bool          `json:"success"`
	Participation participation `json:"participation"`
	Goal          int           `json:"goal"`
	Completed     bool          `json:"completed"`
}

// participant is a row of the participant list.
type participant struct {
	UserID    string          `json:"userId"`
	User      *userjson.Brief `json:"user"`
	Progress  int             `json:"progress"`
	Completed bool            `json:"completed"`
	JoinedAt  string          `json:"joinedAt"`
	UpdatedAt string          `json:"updatedAt"`
}

// myChallenge is a challenge of GET /users/me/challenges, with the
// caller's progress.
type myChallenge struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Description      string `json:"description"`
	Goal             int    `json:"goal"`
	StartDate        string `json:"startDate"`
	EndDate          string `json:"endDate"`
	ParticipantCount int    `json:"participantCount"`
	HostID           string `json:"hostId"`
	CreatedAt        string `json:"createdAt"`
	Progress         int    `json:"progress"`
}

// userChallenge is a challenge of GET /users/{username}/challenges.
type userChallenge struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Description      string `json:"description"`
	Goal             int    `json:"goal"`
	ParticipantCount int    `json:"participantCount"`
	CreatedAt        string `json:"createdAt"`
}

// The reader's lists answer a page (httpapi.ArrayPage) and the next
// page's cursor.
type (
	myChallengeList struct {
		Challenges []myChallenge `json:"challenges"`
		httpapi.More
	}
	userChallengeList struct {
		Challenges []userChallenge `json:"challenges"`
		httpapi.More
	}
	// storeChallengeList is GET /stores/{slug}/challenges: the listing
	// shape of GET /challenges, a superset of the spec's fields.
	storeChallengeList struct {
		Challenges []challenge `json:"challenges"`
		httpapi.More
	}
)

func newChallenge(c *challenges.Challenge) challenge {
	return challenge{
		ID: c.ID, Name: c.Name, Description: c.Description, Goal: c.Goal, StartDate: c.StartDate, EndDate: c.EndDate,
		ParticipantCount: c.ParticipantCount, HostID: c.HostID, StoreID: nullable(c.StoreID),
		CreatedAt: userjson.Time(c.CreatedAt), UpdatedAt: userjson.Time(c.UpdatedAt),
	}
}

func newChallengeView(v *challenges.View) challengeView {
	out := challengeView{
		challenge: newChallenge(v.Challenge),
		Host:      userjson.BriefOf(v.Host, true),
		Store:     storejson.BriefOf(v.Store, true),
	}
	if v.Participant != nil {
		out.IsParticipant = true
		n := v.Participant.Progress
		out.Progress = &n
	}
	return out
}

func newParticipation(p *challenges.Participant) participation {
	return participation{
		ChallengeID: p.ChallengeID, UserID: p.UserID, Progress: p.Progress,
		JoinedAt: userjson.Time(p.JoinedAt), UpdatedAt: userjson.Time(p.UpdatedAt),
	}
}

func newParticipant(v challenges.ParticipantView, goal int) participant {
	return participant{
		UserID: v.UserID, User: userjson.BriefOf(v.User, true), Progress: v.Progress, Completed: v.Completed(goal),
		JoinedAt: userjson.Time(v.JoinedAt), UpdatedAt: userjson.Time(v.UpdatedAt),
	}
}

func newMyChallenge(p challenges.Participation) myChallenge {
	c := p.Challenge
	return myChallenge{
		ID: c.ID, Name: c.Name, Description: c.Description, Goal: c.Goal, StartDate: c.StartDate, EndDate: c.EndDate,
		ParticipantCount: c.ParticipantCount, HostID: c.HostID, CreatedAt: userjson.Time(c.CreatedAt),
		Progress: p.Participant.Progress,
	}
}

func newUserChallenge(p challenges.Participation) userChallenge {
	c := p.Challenge
	return userChallenge{
		ID: c.ID, Name: c.Name, Description: c.Description, Goal: c.Goal, ParticipantCount: c.ParticipantCount,
		CreatedAt: userjson.Time(c.CreatedAt),
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
