package extpos

import (
	"context"
	"errors"
	"time"
)

// ErrNotConnected is a store that has not connected the external system.
var ErrNotConnected = errors.New("the store has not connected its point-of-sale system")

// ErrJobNotFound is an unknown sync job.
var ErrJobNotFound = errors.New("sync job not found")

// ErrSyncRunning is a sync asked for, or about to run, while another of
// the same store holds the store's sync lock (RunningError names it).
var ErrSyncRunning = errors.New("another sync of the store is running")

// RunningError is ErrSyncRunning naming the job that holds the lock.
type RunningError struct{ JobID string }

func (e *RunningError) Error() string     { return ErrSyncRunning.Error() + ": job " + e.JobID }
func (e *RunningError) Is(err error) bool { return err == ErrSyncRunning }

// SyncLease is how long a store's sync lock holds without its job
// renewing it: from the request until the worker takes the job, and from
// each run's start (the worker's run ends well within it: its Lambda
// times out at a sixth of the queue's 60 s visibility timeout). A job
// whose worker died frees the store when its lease ends.
const SyncLease = 2 * time.Minute

// Connection is a store's link to its external account. Tokens holds the
// OAuth tokens sealed (Sealer), never in clear.
type Connection struct {
	StoreID     string
	MerchantID  string
	LocationID  string // where counts are read and set
	Tokens      []byte // sealed JSON of the oauth2.Token
	ConnectedBy string
	ConnectedAt time.Time
	UpdatedAt   time.Time
}

// Mode is what a sync does.
type Mode string

// The sync modes.
const (
	Import Mode = "import"  // external → store: create and update inventory by ISBN
	Export Mode = "export"  // store → external: push items, prices and counts
	TwoWay Mode = "two-way" // both; the newer side of each item wins
)

// Modes lists the modes.
var Modes = []Mode{Import, Export, TwoWay}

// Valid reports whether m is one of Modes.
func (m Mode) Valid() bool { return m == Import || m == Export || m == TwoWay }

// JobStatus is where a sync job is.
type JobStatus string

// The job statuses.
const (
	JobQueued JobStatus = "queued"
	JobDone   JobStatus = "done"
	JobFailed JobStatus = "failed"
)

// Job is one requested sync, run by the pos-sync worker.
type Job struct {
	ID, StoreID string
	Mode        Mode
	UserID      string // who asked
	Status      JobStatus
	Result      Result
	// Error is why a failed job failed.
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Result is what a sync did: the spec's { synced, created, updated,
// errors }.
type Result struct {
	// Synced counts the items compared without error; Created the items
	// created (in the store's inventory or in the external catalog);
	// Updated those changed on either side.
	Synced, Created, Updated int
	Errors                   []ItemError
}

// ItemError is one item the sync could not apply.
type ItemError struct {
	ExternalItemID string
	InventoryID    string
	ISBN           string
	Reason         string
}

// maxErrors bounds the errors one job keeps (its record stays small).
const maxErrors = 100

func (r *Result) fail(e ItemError) {
	if len(r.Errors) < maxErrors {
		r.Errors = append(r.Errors, e)
	}
}

// Store keeps the connections, the used states and the sync jobs
// (shared/dynamo: dynamo.NewExtPos).
type Store interface {
	UsedStates
	PutConnection(ctx context.Context, c *Connection) error
	// GetConnection reads storeID's connection; ErrNotConnected.
	GetConnection(ctx context.Context, storeID string) (*Connection, error)
	// SetTokens replaces the sealed tokens of a connection.
	SetTokens(ctx context.Context, storeID string, sealed []byte, at time.Time) error
	// CreateJob puts a new job.
	CreateJob(ctx context.Context, j *Job) error
	// GetJob reads one; ErrJobNotFound.
	GetJob(ctx context.Context, storeID, id string) (*Job, error)
	// FinishJob writes a job's outcome (status, result, error).
	FinishJob(ctx context.Context, j *Job) error
	// LockSync takes storeID's sync lock for jobID until now+lease, or
	// renews it when jobID holds it: a *RunningError naming the holder
	// when another job's lease has not ended. Two callers racing for a
	// free lock: one gets it.
	LockSync(ctx context.Context, storeID, jobID string, now time.Time, lease time.Duration) error
	// UnlockSync frees storeID's sync lock if jobID holds it (else it
	// does nothing).
	UnlockSync(ctx context.Context, storeID, jobID string) error
}
