package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/guregu/dynamo/v2"
)

// ImportJobs stores inventory import jobs (csvimport.Jobs): one item per
// job and, in the job's partition, one item per checkpoint that reported
// errors, holding that stretch's row errors. A job and its errors expire
// importJobTTL after the job was created.
type ImportJobs struct{ t *table }

var _ csvimport.Jobs = (*ImportJobs)(nil)

// NewImportJobs returns the import jobs' store.
func NewImportJobs(h Handle) *ImportJobs { return &ImportJobs{h.table()} }

// The import jobs' item types and keys live here, beside their only
// store, rather than in keys.go's lists, which the inventory's own
// stores extend at the same time.
const (
	typeImportJob    = "ImportJob"
	typeImportErrors = "ImportErrors"
)

// importJobTTL is how long a job's progress and error report are kept.
const importJobTTL = 30 * 24 * time.Hour

// maxErrorsPerItem bounds the errors stored for one checkpoint, so the
// item stays far below DynamoDB's 400 KB (a chunk of 100 rows reports a
// few hundred at most; the failed count stays exact beyond it).
const maxErrorsPerItem = 500

// ImportJobKey is an import job's item.
func ImportJobKey(jobID string) Key { return Key{importJobPK(jobID), "JOB"} }

// importErrorsPrefix begins the sort key of a job's error items.
const importErrorsPrefix = "ERR#"

// ImportErrorsKey holds the row errors of the stretch of a job that
// starts at data row from (zero-padded: the errors read in row order).
func ImportErrorsKey(jobID string, from int) Key {
	return Key{importJobPK(jobID), fmt.Sprintf("%s%010d", importErrorsPrefix, from)}
}

func importJobPK(jobID string) string { return "IMPORT#" + jobID }

type importJobItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	ID        string    `dynamo:"id"`
	StoreID   string    `dynamo:"storeId"`
	UserID    string    `dynamo:"userId"`
	FileKey   string    `dynamo:"fileKey"`
	Status    string    `dynamo:"status"`
	Total     int       `dynamo:"total"`
	RowsDone  int       `dynamo:"rowsDone"`
	Imported  int       `dynamo:"imported"`
	Failed    int       `dynamo:"failed"`
	Handoff   int       `dynamo:"handoff"`
	Reason    string    `dynamo:"reason,omitempty"`
	CreatedAt time.Time `dynamo:"createdAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
	ExpiresAt int64     `dynamo:"expiresAt"`
}

type importErrorsItem struct {
	PK        string           `dynamo:"PK"`
	SK        string           `dynamo:"SK"`
	Type      string           `dynamo:"type"`
	Errors    []importRowError `dynamo:"errors"`
	ExpiresAt int64            `dynamo:"expiresAt"`
}

type importRowError struct {
	Row    int    `dynamo:"row"`
	Column string `dynamo:"column"`
	Value  string `dynamo:"value"`
	Reason string `dynamo:"reason"`
}

// CreateJob puts a new job (its id is new: no condition needed beyond
// not overwriting one).
func (s *ImportJobs) CreateJob(ctx context.Context, j *csvimport.Job) error {
	k := ImportJobKey(j.ID)
	it := importJobItem{
		PK: k.PK, SK: k.SK, Type: typeImportJob, ID: j.ID, StoreID: j.StoreID, UserID: j.UserID, FileKey: j.FileKey,
		Status: string(j.Status), Total: j.Total, RowsDone: j.RowsDone, Imported: j.Imported, Failed: j.Failed,
		Handoff: j.Handoff, CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC(), ExpiresAt: j.CreatedAt.Add(importJobTTL).Unix(),
	}
	if err := s.t.put(it).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		return fmt.Errorf("create import job %s: %w", j.ID, err)
	}
	return nil
}

// GetJob reads a job, strongly consistent. Errors: csvimport.ErrJobNotFound.
func (s *ImportJobs) GetJob(ctx context.Context, jobID string) (*csvimport.Job, error) {
	return getOne(ctx, s.t, ImportJobKey(jobID), func(it importJobItem) *csvimport.Job {
		return &csvimport.Job{
			ID: it.ID, StoreID: it.StoreID, UserID: it.UserID, FileKey: it.FileKey, Status: csvimport.Status(it.Status),
			Total: it.Total, RowsDone: it.RowsDone, Imported: it.Imported, Failed: it.Failed, Handoff: it.Handoff,
			Reason: it.Reason, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
		}
	}, csvimport.ErrJobNotFound, "import job "+jobID)
}

// Checkpoint moves the job's checkpoint from p.From to p.To, adds p's
// counts and puts p's errors, in one TransactWriteItems (an UpdateItem
// conditional on the checkpoint, a PutItem of the errors when there are
// any), or in one UpdateItem when there are none. Errors:
// csvimport.ErrStale.
func (s *ImportJobs) Checkpoint(ctx context.Context, j *csvimport.Job, p csvimport.Progress) error {
	now := s.t.now().UTC()
	upd := s.t.update(ImportJobKey(j.ID)).Set("rowsDone", p.To).Set("updatedAt", now).
		Add("imported", p.Imported).Add("failed", p.Failed).
		If("rowsDone = ? AND $ = ?", p.From, "status", string(csvimport.Running))
	if p.Final {
		upd = upd.Set("status", string(csvimport.Done))
	}
	var err error
	if len(p.Errors) == 0 {
		err = upd.Run(ctx)
		if isConditionFailed(err) {
			err = csvimport.ErrStale
		}
	} else {
		errs := p.Errors
		if len(errs) > maxErrorsPerItem {
			errs = errs[:maxErrorsPerItem]
		}
		k := ImportErrorsKey(j.ID, p.From)
		it := importErrorsItem{PK: k.PK, SK: k.SK, Type: typeImportErrors, ExpiresAt: j.CreatedAt.Add(importJobTTL).Unix()}
		for _, e := range errs {
			it.Errors = append(it.Errors, importRowError(e))
		}
		err = s.t.tx().update(upd, csvimport.ErrStale).put(s.t.put(it), nil).run(ctx)
	}
	if err != nil {
		return fmt.Errorf("checkpoint import job %s at row %d: %w", j.ID, p.To, err)
	}
	return nil
}

// SetHandoff records the continuation sent from checkpoint at, if the
// job is still there and running. Errors: csvimport.ErrStale.
func (s *ImportJobs) SetHandoff(ctx context.Context, j *csvimport.Job, at int) error {
	err := s.t.update(ImportJobKey(j.ID)).Set("handoff", at).Set("updatedAt", s.t.now().UTC()).
		If("rowsDone = ? AND $ = ? AND handoff < ?", at, "status", string(csvimport.Running), at).Run(ctx)
	if isConditionFailed(err) {
		return fmt.Errorf("hand off import job %s at row %d: %w", j.ID, at, csvimport.ErrStale)
	}
	if err != nil {
		return fmt.Errorf("hand off import job %s at row %d: %w", j.ID, at, err)
	}
	return nil
}

// FailJob marks a running job Failed with reason.
func (s *ImportJobs) FailJob(ctx context.Context, j *csvimport.Job, reason string) error {
	err := s.t.update(ImportJobKey(j.ID)).Set("status", string(csvimport.Failed)).Set("reason", reason).
		Set("updatedAt", s.t.now().UTC()).If("$ = ?", "status", string(csvimport.Running)).Run(ctx)
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("fail import job %s: %w", j.ID, err)
	}
	return nil
}

// JobErrors reads a job's error items in row order until limit errors
// (one Query page at a time, consistent: the last checkpoint's errors
// are there).
func (s *ImportJobs) JobErrors(ctx context.Context, jobID string, limit int) ([]csvimport.RowError, error) {
	out := []csvimport.RowError{}
	it := s.t.table.Get(AttrPK, importJobPK(jobID)).Range(AttrSK, dynamo.BeginsWith, importErrorsPrefix).
		Consistent(true).Iter()
	var item importErrorsItem
	for len(out) < limit && it.Next(ctx, &item) {
		for _, e := range item.Errors {
			if len(out) == limit {
				break
			}
			out = append(out, csvimport.RowError(e))
		}
		item = importErrorsItem{}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read the errors of import job %s: %w", jobID, err)
	}
	return out, nil
}

// isConditionFailed reports whether a single-item write's condition
// failed.
func isConditionFailed(err error) bool {
	return dynamo.IsCondCheckFailed(err)
}
