package queues

import (
	"slices"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
)

func TestNames(t *testing.T) {
	assert.Equal(t, Name("csv-import-dlq"), CSVImport.DLQ())
	assert.Equal(t, "QUEUE_URL_CSV_IMPORT", CSVImport.URLEnv())
	assert.Equal(t, "QUEUE_URL_POS_SYNC", POSSync.URLEnv())
	seen := map[Name]bool{}
	for _, n := range All {
		assert.False(t, seen[n], "%s listed twice", n)
		seen[n] = true
	}
}

// The variable names live in shared/config with the others; URLEnv derives
// them. A queue added to All without its config name fails here.
func TestURLEnv_isNamedInConfig(t *testing.T) {
	var derived []string
	for _, n := range All {
		derived = append(derived, n.URLEnv())
		assert.Contains(t, config.Names, n.URLEnv(), "queue %s: add %s to shared/config", n, n.URLEnv())
	}
	for _, name := range config.Names {
		if strings.HasPrefix(name, "QUEUE_URL_") {
			assert.True(t, slices.Contains(derived, name), "config names %s, which no queue of All uses", name)
		}
	}
	assert.Equal(t, config.EnvQueueURLCSVImport, CSVImport.URLEnv())
	assert.Equal(t, config.EnvQueueURLPOSSync, POSSync.URLEnv())
	assert.Equal(t, config.EnvQueueURLWebhooks, Webhooks.URLEnv())
}
