// Package importjob is what the imports group (POST
// /v1/inventory/bulk-import and its job) and the csv-import worker group
// share: the import's settings, the queue message, and the runner that
// applies a job's file from the media bucket (csvimport.Importer) a
// stretch at a time and hands the rest on to the queue. Each group builds
// it in its constructor; it is no group itself, so each function links it
// and its own group alone.
package importjob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/worker"
)

// The import's settings (config.Env), read by the imports group.
const (
	// EnvMaxBytes is the largest import file, in bytes (default 5 MiB;
	// API Gateway and Lambda take a request of 6 MB at most).
	EnvMaxBytes = "CSV_IMPORT_MAX_BYTES"
	// EnvMaxRows is the most data rows a file may have (default 50,000).
	EnvMaxRows = "CSV_IMPORT_MAX_ROWS"
	// EnvInlineRows is the most data rows a file may have to be applied
	// within the upload's request and answered with its final counts
	// (default 500); a larger one is answered 202 and applied by the
	// csv-import worker.
	EnvInlineRows = "CSV_IMPORT_INLINE_ROWS"
	// EnvChunkRows is how many rows go between two checkpoints (default
	// 100); EnvSlice how long one worker invocation applies rows at most
	// (default 20s; in AWS the function's deadline ends it sooner). Read
	// by both groups; small values let a test walk a job through many
	// checkpoints and messages.
	EnvChunkRows = "CSV_IMPORT_CHUNK_ROWS"
	EnvSlice     = "CSV_IMPORT_SLICE"
)

// Defaults of the settings.
const (
	DefaultMaxBytes   = 5 << 20
	DefaultMaxRows    = 50_000
	DefaultInlineRows = 500
)

// Settings are the import's limits.
type Settings struct {
	Limits     csvimport.Limits
	InlineRows int
}

// ReadSettings reads the settings through env.
func ReadSettings(env *config.Env) Settings {
	s := Settings{Limits: csvimport.Limits{
		MaxBytes: env.Int(EnvMaxBytes, DefaultMaxBytes, 1<<10, 1<<30),
		MaxRows:  int(env.Int(EnvMaxRows, DefaultMaxRows, 1, 10_000_000)),
	}}
	s.InlineRows = int(env.Int(EnvInlineRows, DefaultInlineRows, 0, 10_000_000))
	return s
}

// Time budgets of a stretch of a job: the upload's request gives its
// inline run inlineBudget (its function times out after 10 s); a worker's
// invocation runs until workerMargin before its deadline (10 s in AWS),
// at most sliceBudget (the local poller has no deadline, and a message
// must be done within the queue's visibility timeout). A stretch ends at
// the first checkpoint after its budget.
const (
	InlineBudget = 4 * time.Second
	defaultSlice = 20 * time.Second
	workerMargin = 4 * time.Second
)

// FilePrefix begins the media bucket's key of every import file. The
// files hold cost prices: the media CDN is refused them (infra's bucket
// policy denies CloudFront this prefix), and a lifecycle rule deletes
// them FileExpiryDays after upload.
const FilePrefix = "imports/"

// FileExpiryDays is how long an import file is kept: far longer than
// any job runs (a job still running after StaleAfter is failed), short
// enough that a store's costs do not sit in the bucket for ever. The
// job's counts and errors stay 30 days without it.
const FileExpiryDays = 7

// FileKey is where a job's file is kept: under the store, named by the
// job and a random part no answer shows, so that no one who learns a job
// id can derive the file's address (the media bucket is served publicly
// by key).
func FileKey(storeID, jobID string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return FilePrefix + storeID + "/" + jobID + "-" + hex.EncodeToString(b) + ".csv"
}

// Message is the body of a csv-import message: apply job JobID from
// data row From. Its key (Key) makes a redelivery run once.
type Message struct {
	JobID string `json:"jobId"`
	From  int    `json:"from"`
}

// Key is the message's idempotency key: one per job and stretch.
func (m Message) Key() string { return "import:" + m.JobID + ":" + strconv.Itoa(m.From) }

// Runner applies import jobs.
type Runner struct {
	Importer *csvimport.Importer
	Jobs     csvimport.Jobs
	Files    *s3media.Store
	sender   *sqsqueue.Sender
	logger   *slog.Logger
	now      func() time.Time
	slice    time.Duration
}

// NewRunner builds the runner from d: the inventory's stock writer, the
// catalog (its books store to find ISBNs, its importer to add books),
// the jobs' store, the media bucket and a sender to the csv-import queue
// (its URL variable is required: a missing one is reported at start).
func NewRunner(d api.Deps, limits csvimport.Limits) *Runner {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	jobs := dynamo.NewImportJobs(d.Table)
	r := &Runner{
		Importer: &csvimport.Importer{
			Stock:   dynamo.NewInventory(d.Table),
			Books:   dynamo.NewBooks(d.Table),
			Catalog: books.NewService(books.Deps{Store: dynamo.NewBooks(d.Table), Now: now}),
			Jobs:    jobs, Limits: limits, Now: now,
			Chunk: int(d.Env.Int(EnvChunkRows, csvimport.DefaultChunk, 1, 10_000)),
		},
		slice:  d.Env.Duration(EnvSlice, defaultSlice),
		Jobs:   jobs,
		Files:  s3media.NewStore(s3media.NewClient(d.AWS), s3media.ReadSettings(d.Env)),
		logger: logger, now: now,
	}
	if d.Env != nil {
		sender, err := sqsqueue.NewSender(sqsqueue.NewClient(d.AWS), d.Env.String, queues.CSVImport)
		d.Env.Fail(err)
		r.sender = sender
	}
	return r
}

// Send hands job's stretch from its checkpoint to the worker: the
// handoff is recorded on the job, then the message is sent. A send that
// fails after the record is sent again by any redelivery of the message
// before it (Handle). Errors: csvimport.ErrStale (the job moved on),
// storage and queue failures.
func (r *Runner) Send(ctx context.Context, job *csvimport.Job) error {
	if job.Handoff < job.RowsDone {
		if err := r.Jobs.SetHandoff(ctx, job, job.RowsDone); err != nil {
			return err
		}
		job.Handoff = job.RowsDone
	}
	return r.send(ctx, Message{JobID: job.ID, From: job.Handoff})
}

func (r *Runner) send(ctx context.Context, m Message) error {
	if r.sender == nil {
		return errors.New("importjob: no sender (the runner was built from a zero Deps)")
	}
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return r.sender.Send(ctx, queues.CSVImport, body, m.Key())
}

// Handle is the csv-import worker's handler: it applies the message's
// job from the job's checkpoint for one stretch (until its budget), and
// sends the next stretch's message when rows remain.
//
//   - A body that is no job message fails (it goes to the dead-letter
//     queue after queues.MaxReceiveCount receipts).
//   - A job that is gone (expired), done or failed: nothing to do.
//   - A job already handed on past this message (a redelivery after its
//     continuation was recorded): the continuation is sent again (its
//     key makes it run once) and this message is done.
//   - A stretch that fails leaves the job at its last checkpoint; the
//     redelivery resumes there. On the last receipt before the
//     dead-letter queue the job is marked failed, so its endpoint says so,
//     also when it is the job's read that failed (fail). A job no
//     receipt could mark (each timed out) its endpoint reports failed
//     once stale (Settle), and a message of it that still comes marks
//     it so and applies nothing.
func (r *Runner) Handle(ctx context.Context, m worker.Message) error {
	var msg Message
	if err := json.Unmarshal(m.Body, &msg); err != nil || msg.JobID == "" {
		return fmt.Errorf("csv-import message %s is not an import job message: %q", m.ID, m.Body)
	}
	last := m.ReceiveCount >= queues.MaxReceiveCount
	job, err := r.Jobs.GetJob(ctx, msg.JobID)
	switch {
	case errors.Is(err, csvimport.ErrJobNotFound):
		r.logger.Warn("csv-import: the message's job is gone", "jobId", msg.JobID)
		return nil
	case err != nil:
		if last {
			r.fail(ctx, &csvimport.Job{ID: msg.JobID}, "The import stopped after repeated failures to read its progress")
		}
		return err
	case job.Status != csvimport.Running:
		return nil
	}
	if reason, stale := r.stale(job, acceptWithin); stale {
		// Its endpoint reports it failed already, or would before this
		// receipt's first checkpoint: keep to that.
		r.fail(ctx, job, reason)
		return nil
	}
	if job.Handoff > msg.From {
		return r.send(ctx, Message{JobID: job.ID, From: job.Handoff})
	}
	job, err = r.run(ctx, job)
	switch {
	case errors.Is(err, csvimport.ErrStale):
		return nil // another attempt moved the job on
	case err != nil:
		if last {
			r.fail(ctx, job, fmt.Sprintf("The import stopped at row %d of %d after repeated failures", job.RowsDone, job.Total))
		}
		return err
	case job.Status == csvimport.Running:
		if err := r.Send(ctx, job); err != nil && !errors.Is(err, csvimport.ErrStale) {
			return err
		}
	}
	return nil
}

// failAttempts bounds the writes fail tries; failPause is the wait
// between two.
const (
	failAttempts = 3
	failPause    = 200 * time.Millisecond
)

// fail marks job failed with reason on a message's last receipt (the
// next failure sends it to the dead-letter queue, and nothing runs the
// job again), trying the write a few times: the storage that just
// failed may fail again. A job it still cannot mark is reported failed
// by its endpoint once stale (Settle).
func (r *Runner) fail(ctx context.Context, job *csvimport.Job, reason string) {
	ctx = context.WithoutCancel(ctx)
	var err error
	for attempt := 1; attempt <= failAttempts; attempt++ {
		if err = r.Jobs.FailJob(ctx, job, reason); err == nil {
			return
		}
		if attempt < failAttempts {
			time.Sleep(failPause)
		}
	}
	r.logger.Warn("csv-import: marking the job failed failed", "jobId", job.ID, "error", err.Error())
}

// StaleAfter is how long a running job may go without recording a step
// (its UpdatedAt: a checkpoint, a handoff) before it is taken to have
// stopped: a message is received at most queues.MaxReceiveCount times,
// each receipt hidden for queues.VisibilityTimeout, so a job whose
// message every receipt failed to finish, even one that timed out each
// time or could not mark the job failed, has had its last receipt by
// then. A stretch records a checkpoint every chunk, far more often.
const StaleAfter = queues.VisibilityTimeout * queues.MaxReceiveCount

// acceptWithin is how long a job may have gone without a step for a
// receipt to still run it: a receipt records its first step within its
// visibility timeout, so a job a receipt runs never looks stale to its
// endpoint in between (reported failed, then running again).
const acceptWithin = StaleAfter - queues.VisibilityTimeout

// Stale reports whether job is running but has recorded nothing for
// StaleAfter, and why it is then taken to have failed.
func (r *Runner) Stale(job *csvimport.Job) (string, bool) { return r.stale(job, StaleAfter) }

func (r *Runner) stale(job *csvimport.Job, after time.Duration) (string, bool) {
	if job.Status != csvimport.Running || r.now().Sub(job.UpdatedAt) <= after {
		return "", false
	}
	return fmt.Sprintf("The import stopped at row %d of %d: its worker made no progress for too long", job.RowsDone, job.Total), true
}

// Settle is job as its endpoint reports it: a stale job (Stale) as
// failed, with the reason. The endpoint is a read (a GET is admitted to
// change nothing): the job is marked failed in storage by the worker,
// should a message of it still come (Handle), and then applies nothing.
func (r *Runner) Settle(job *csvimport.Job) *csvimport.Job {
	reason, stale := r.Stale(job)
	if !stale {
		return job
	}
	failed := *job
	failed.Status, failed.Reason = csvimport.Failed, reason
	return &failed
}

// run applies one stretch of job read from its file in the bucket.
func (r *Runner) run(ctx context.Context, job *csvimport.Job) (*csvimport.Job, error) {
	obj, err := r.Files.Get(ctx, job.FileKey)
	if err != nil {
		return job, fmt.Errorf("import %s: read its file: %w", job.ID, err)
	}
	defer obj.Body.Close()
	until := r.now().Add(r.slice)
	if d, ok := ctx.Deadline(); ok && d.Add(-workerMargin).Before(until) {
		until = d.Add(-workerMargin)
	}
	return r.Importer.Run(ctx, job, obj.Body, until)
}
