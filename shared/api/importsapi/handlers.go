package importsapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/bookplatform/backend/shared/api/importjob"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
)

// maxReportedErrors bounds the errors an answer lists; failed counts
// every failed row.
const maxReportedErrors = 1000

// result is the answer of the upload and of the job: the spec's {
// success, imported, failed, errors } and the job's progress.
type result struct {
	Success   bool       `json:"success" doc:"false only for a job that stopped before the end of its file (status failed); a file with bad rows still succeeds: they are counted in failed and listed in errors."`
	JobID     string     `json:"jobId" doc:"The import's job: GET /v1/inventory/bulk-import/{jobId}?storeId= reports it (kept 30 days)."`
	Status    string     `json:"status" doc:"running: rows remain (the answer 202, or the job read while the worker applies it); done: every row was applied or reported; failed: the job stopped early (reason says why), the rows processed stay applied."`
	Total     int        `json:"total" doc:"The file's data rows (the header and blank rows aside)."`
	Processed int        `json:"processed" doc:"The data rows applied or reported so far (total when done)."`
	Imported  int        `json:"imported" doc:"Rows whose item was created or set (a row that set an item to what it already held counts too: re-importing a file gives the same counts and changes nothing)."`
	Failed    int        `json:"failed" doc:"Rows not imported, each with at least one element in errors."`
	Errors    []rowError `json:"errors" doc:"Why each failed row failed, in row order; one element per bad cell (at most 1000 elements: failed counts every failed row)."`
	Reason    string     `json:"reason,omitempty" doc:"Why a failed job stopped."`
}

// rowError is one problem of one row (csvimport.RowError).
type rowError struct {
	Row    int    `json:"row" doc:"The line of the file the row starts on; the header is line 1, so without line breaks inside quoted cells it is the row's number in a spreadsheet."`
	Column string `json:"column" doc:"The column at fault, as the header names it in lower case (isbn, quantity, price, condition, cost, location, notes, title); empty when the row as a whole is (a malformed row)."`
	Value  string `json:"value" doc:"The cell as given (at most 100 characters)."`
	Reason string `json:"reason" doc:"What is wrong, for a person to fix: 'has more than two decimals', 'is not a valid ISBN: wrong check digit', 'is not in the catalog: give the row a title (and author) to add the book'."`
}

func (h *handler) answer(w http.ResponseWriter, r *http.Request, status int, job *csvimport.Job) error {
	errs, err := h.run.Jobs.JobErrors(r.Context(), job.ID, maxReportedErrors)
	if err != nil {
		return err
	}
	out := result{
		Success: job.Status != csvimport.Failed, JobID: job.ID, Status: string(job.Status), Total: job.Total,
		Processed: job.RowsDone, Imported: job.Imported, Failed: job.Failed, Errors: make([]rowError, len(errs)), Reason: job.Reason,
	}
	for i, e := range errs {
		out.Errors[i] = rowError(e)
	}
	return httpapi.JSON(w, status, out)
}

// upload serves POST /v1/inventory/bulk-import?storeId=: the file is read
// (within its size limit) and streamed through the reader once to check
// its header and count its rows (within the row limit), so a file that
// cannot be imported is refused 400 before anything is stored. Then it is
// kept in the media bucket and its job created; a file of at most
// InlineRows rows is applied here, by the worker's code path, and
// answered 200 with the final counts; a larger one is handed to the
// csv-import worker and answered 202. An inline run that outlasts its
// budget, or meets a storage failure, is handed on too (202): the worker
// resumes it at its checkpoint.
func (h *handler) upload(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	caller := httpapi.CallerOf(r)
	limits := h.settings.Limits
	data, err := httpapi.ReadFile(w, r, "file", limits.MaxBytes, csvimport.TooLarge(limits.MaxBytes))
	if err != nil {
		return err
	}
	total, err := countRows(data, limits)
	if err != nil {
		return err
	}
	now := h.run.Importer.Now()
	job := &csvimport.Job{
		ID: ids.New(), StoreID: caller.Store().ID, UserID: caller.ID, Status: csvimport.Running, Total: total,
		Handoff: -1, CreatedAt: now, UpdatedAt: now,
	}
	job.FileKey = importjob.FileKey(job.StoreID, job.ID)
	if err := h.run.Files.PutFile(ctx, job.FileKey, "text/csv", data); err != nil {
		return err
	}
	if total > h.settings.InlineRows {
		job.Handoff = 0
		if err := h.run.Jobs.CreateJob(ctx, job); err != nil {
			return err
		}
		if err := h.handOff(ctx, job); err != nil {
			return err
		}
		return h.answer(w, r, http.StatusAccepted, job)
	}
	if err := h.run.Jobs.CreateJob(ctx, job); err != nil {
		return err
	}
	ran, err := h.run.Importer.Run(ctx, job, bytes.NewReader(data), now.Add(importjob.InlineBudget))
	switch {
	case errors.Is(err, csvimport.ErrStale):
		return err // nothing else runs this job: a bug
	case err != nil && apperr.CodeOf(err) == apperr.CodeBadRequest:
		return err // the file read differently than when counted: a bug
	case err != nil:
		// A storage failure: the worker resumes at the last checkpoint.
		if serr := h.handOff(ctx, ran); serr != nil {
			return errors.Join(err, serr)
		}
		return h.answer(w, r, http.StatusAccepted, ran)
	case ran.Status == csvimport.Running:
		if err := h.handOff(ctx, ran); err != nil {
			return err
		}
		return h.answer(w, r, http.StatusAccepted, ran)
	}
	return h.answer(w, r, http.StatusOK, ran)
}

// handOff sends job's rest to the csv-import worker. When it cannot be
// sent (the queue unreachable) no message will ever run the job: it is
// marked failed, so its endpoint does not report it running for ever,
// and the upload answers the error (500).
func (h *handler) handOff(ctx context.Context, job *csvimport.Job) error {
	err := h.run.Send(ctx, job)
	if err == nil || errors.Is(err, csvimport.ErrStale) {
		return err
	}
	reason := fmt.Sprintf("The import could not be handed to the worker at row %d of %d: upload the file again", job.RowsDone, job.Total)
	if ferr := h.run.Jobs.FailJob(context.WithoutCancel(ctx), job, reason); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// countRows streams the file through the reader: its header, its limits
// and its number of data rows. Errors: the reader's (400).
func countRows(data []byte, l csvimport.Limits) (int, error) {
	rd, err := csvimport.NewReader(bytes.NewReader(data), l)
	if err != nil {
		return 0, err
	}
	for {
		_, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd.Rows(), nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// job serves GET /v1/inventory/bulk-import/{jobId}?storeId=: the job's
// progress and errors; 404 for a job of another store (as for none). A
// running job idle for importjob.StaleAfter is answered failed
// (Runner.Settle): no message is left to run it.
func (h *handler) job(w http.ResponseWriter, r *http.Request) error {
	id, ok := ids.Parse(r.PathValue("jobId"))
	if !ok {
		return csvimport.ErrJobNotFound
	}
	job, err := h.run.Jobs.GetJob(r.Context(), id)
	if err != nil {
		return err
	}
	if job.StoreID != httpapi.CallerOf(r).Store().ID {
		return csvimport.ErrJobNotFound
	}
	return h.answer(w, r, http.StatusOK, h.run.Settle(job))
}
