package tabletarget_test

import (
	"testing"

	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without a local run or an endpoint, a command writes to AWS only when
// told so (-aws).
func TestChoose_refusesAWSByAccident(t *testing.T) {
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "", config.EnvLocalDataDir: t.TempDir(), config.EnvTableName: "books"} {
		t.Setenv(k, v)
	}
	_, err := tabletarget.Choose("", false)
	assert.ErrorContains(t, err, "no local run")

	dest, err := tabletarget.Choose("", true)
	require.NoError(t, err)
	assert.Equal(t, "books", dest.Table)
	assert.Equal(t, "AWS", dest.Where)
}
