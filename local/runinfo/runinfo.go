// Package runinfo records where a running local stack (`make run`)
// listens, in a small file in its data directory, so that a tool started
// beside it (the catalog importer) reaches its DynamoDB Local without
// being told a port: the stand-ins listen on free ports chosen at start.
package runinfo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// fileName is the file in the data directory.
const fileName = "run.json"

// Info is what a tool needs to use the running stack.
type Info struct {
	PID          int    `json:"pid"`
	API          string `json:"api"`
	DynamoDB     string `json:"dynamodb"`
	S3           string `json:"s3"`
	SQS          string `json:"sqs"`
	Table        string `json:"table"`
	MediaBucket  string `json:"mediaBucket"`
	MediaBaseURL string `json:"mediaBaseUrl"`
	// What SAM's env-vars file needs beside the above (infra, make sam):
	// the CloudFront stand-in and its distribution, the queues' URLs by
	// name, and the signing key of the local run (a development key; the
	// file stays in the local data directory).
	CloudFront     string            `json:"cloudfront,omitempty"`
	DistributionID string            `json:"distributionId,omitempty"`
	Queues         map[string]string `json:"queues,omitempty"`
	JWTSecret      string            `json:"jwtSecret,omitempty"`
	// Payments is the Stripe stand-in's base URL (its /_local/ endpoints
	// complete or expire a payment).
	Payments string `json:"payments,omitempty"`
}

// ErrNotRunning is returned by Read when no local stack uses the directory.
var ErrNotRunning = errors.New("no local run is using this data directory")

// Write records info for dir's stack; Remove deletes it when the stack stops.
func Write(dir string, info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := WritePrivate(filepath.Join(dir, fileName), append(data, '\n')); err != nil {
		return fmt.Errorf("write run info: %w", err)
	}
	return nil
}

// WritePrivate writes a file only its owner may read or write (0600),
// the run info and SAM's env-vars file: both hold the local run's
// signing key. A file already there with a wider mode is narrowed too
// (os.WriteFile keeps an existing file's mode).
func WritePrivate(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

// Remove deletes dir's run info; a missing file is not an error.
func Remove(dir string) error {
	if err := os.Remove(filepath.Join(dir, fileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Read returns the run info of the stack using dir. A file left behind by
// a stack that was killed (its process is gone) is ErrNotRunning too, so a
// tool never talks to a port some other program may have taken since.
func Read(dir string) (Info, error) {
	data, err := os.ReadFile(filepath.Join(dir, fileName))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, ErrNotRunning
	}
	if err != nil {
		return Info{}, err
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		return Info{}, fmt.Errorf("read %s: %w", filepath.Join(dir, fileName), err)
	}
	if !alive(info.PID) {
		return Info{}, ErrNotRunning
	}
	return info, nil
}
